"""Grades out of the nbgrader gradebook and into an LMS: roster, settings, file exports and pushes.

One module per job: `gradebook` reads the course's gradebook, `roster_import` imports LMS identities,
`lms_settings` reads `lms.toml`, one module per file format (`canvas`, `moodle`, `blackboard`,
`brightspace`, `breakdown`; their names, declared once, in `format_names`), `canvas_push` and `lti` send grades
over the network.
"""
