"""Renderings of a run: `terminal` (live, for people) and `json_report` (the whole result, for
machines). Both consume engine events or the final RunResult; neither drives the engine."""
