"""Claims and verdicts, provenance, where the time went, generated documentation pages."""
