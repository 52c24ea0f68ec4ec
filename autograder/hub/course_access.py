"""Who reaches a course folder on a hub: its instructors (their OS group owns it, read and write) and the
hub's root services (the watcher); no one else, so a student's server, terminal or kernel cannot read the
gradebook (the hidden tests' full source is in it), the sources with their solutions, or others' submissions."""

import os
import stat
from pathlib import Path

from autograder.hub.hub_course import CourseRefused, HubCourse, HubCourseError
from autograder.hub.os_accounts import AccountError, ensure_group


def open_to_instructors(course: HubCourse) -> None:
    """The course folder and everything in it: group the instructors' OS group, group read and write, folders
    setgid (so what is made in them later keeps the group); the folder itself closed to other users."""
    try:
        group = ensure_group(course.instructors_os_group, course.folder).gr_gid
    except AccountError as exc:
        raise CourseRefused(str(exc)) from None
    for path in [course.folder, *course.folder.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        extra = stat.S_IRGRP | stat.S_IWGRP
        if stat.S_ISDIR(mode):
            extra |= stat.S_IXGRP | stat.S_ISGID
        elif mode & stat.S_IXUSR:
            extra |= stat.S_IXGRP
        os.chown(path, -1, group)
        os.chmod(path, stat.S_IMODE(mode) | extra)
    os.chmod(course.folder, stat.S_IMODE(course.folder.stat().st_mode) & ~0o007)


def closed_parent(folder: Path) -> Path | None:
    """The first folder above `folder` that keeps other users out (an instructor's server could not reach the
    course through it), or None."""
    return next((parent for parent in reversed(folder.parents) if not parent.stat().st_mode & stat.S_IXOTH), None)


def make_gradebook(course: HubCourse) -> None:
    """The course's gradebook, with our tables, made now if it has none: call it before `open_to_instructors`.
    Made later, by the hub's LTI login at the first launch (root, umask 022), it would be writable by root alone,
    and the instructors' formgrader could not record a grade."""
    from autograder.course.settings import SettingsError, read_course
    from autograder.lms.errors import LmsError
    from autograder.lms.gradebook import open_gradebook
    from autograder.lms.identity import our_tables

    try:
        if read_course(course.folder).gradebook_tables():
            return
        with open_gradebook(course.folder, must_exist=False) as gradebook:
            our_tables(gradebook)
    except (SettingsError, LmsError) as exc:
        raise HubCourseError(str(exc)) from None
