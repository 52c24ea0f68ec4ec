"""The course folder: its settings as nbgrader reads them, its submission folders, nbgrader run in it."""
