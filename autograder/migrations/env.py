"""How alembic runs our migrations: on the connection `autograder.migrations.upgrade` hands it (in its
transaction), recording the revision in our own version table, never in nbgrader's."""

from alembic import context

from autograder.migrations import VERSION_TABLE

connection = context.config.attributes.get("connection")
if connection is None:
    # alembic's own command line can write a new revision (`alembic revision`), but runs none: a course's
    # gradebook is found through its nbgrader config, which `autograder db upgrade` reads.
    raise SystemExit("run our migrations with `autograder db upgrade` in the course folder")
context.configure(connection=connection, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
