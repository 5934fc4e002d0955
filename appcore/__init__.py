"""What the App's two shells share, so neither imports the other: the job contract (what a job is, its
dotted path, its id and its Redis keys), the settings read once from the environment, and the grammar
of the comment commands. Pure data and parsing: no Flask, no RQ, no GitHub client."""
