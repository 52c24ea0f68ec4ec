"""`autograder collect`: submissions brought in from an LMS's "download all submissions" archive.

`archive` reads the zip as hostile input, `layouts` reads each LMS's naming conventions, `student_match` finds the
nbgrader student behind each LMS identity, `importer` decides what goes where and writes it, `outcome` holds
what happened to every file and every student (bounded), `reconcile` prints and saves it, and
`canvas_archive` builds a Canvas-format archive from a folder of submissions (for the demo and the tests).
"""
