"""The JupyterHub groups that carry a person's role in one course: the hub's config, spawner and services read them."""


def student_group(course_id: str) -> str:
    """The group of the students of `course_id` (the nbgrader course id)."""
    return f"students-{course_id}"


def instructor_group(course_id: str) -> str:
    """The group of the instructors and TAs of `course_id`: its formgrader and course folder."""
    return f"instructors-{course_id}"
