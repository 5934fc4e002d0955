"""Plain data every layer shares: identifiers, rows, the label table."""
