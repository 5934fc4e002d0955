"""The job shell: GitHub client, checkout, running attempts, posting check runs."""
