"""Issue 28: per-student labels (a group accommodation set once for the course), instructor score overrides,
and the audit trail of every change to a student's deadline or score made by hand (extensions granted and
revoked, labels, overrides), with who, when and why. Extensions themselves stay in nbgrader's own column
(`submitted_assignment.extension`), which every grading path reads."""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""CREATE TABLE autograder_student_label (
        student_id VARCHAR(128) PRIMARY KEY,
        label VARCHAR(64) NOT NULL)""")
    op.execute("""CREATE TABLE autograder_score_override (
        assignment VARCHAR(128) NOT NULL,
        student_id VARCHAR(128) NOT NULL,
        notebook VARCHAR(128) NOT NULL,
        cell VARCHAR(128) NOT NULL,
        score FLOAT NOT NULL,
        PRIMARY KEY (assignment, student_id, notebook, cell))""")
    op.execute("""CREATE TABLE autograder_exception_event (
        id VARCHAR(32) PRIMARY KEY,
        at VARCHAR(32) NOT NULL,
        os_user VARCHAR(128) NOT NULL,
        kind VARCHAR(16) NOT NULL,
        assignment VARCHAR(128),
        student_id VARCHAR(128) NOT NULL,
        detail VARCHAR(1024) NOT NULL,
        reason VARCHAR(1024) NOT NULL)""")
    op.execute("CREATE INDEX autograder_exception_event_student ON autograder_exception_event (student_id)")


def downgrade() -> None:
    op.drop_index("autograder_exception_event_student", table_name="autograder_exception_event")
    op.drop_table("autograder_exception_event")
    op.drop_table("autograder_score_override")
    op.drop_table("autograder_student_label")
