"""The contract at run time (issue 18)."""
