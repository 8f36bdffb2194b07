"""Tidy result tables, one module per experiment, built from measurements and model outputs."""
