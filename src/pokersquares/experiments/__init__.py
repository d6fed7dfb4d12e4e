"""Reproductions of the papers' experiments: each module measures our figures for
one paper's tables and returns rows that put them beside the published ones."""
