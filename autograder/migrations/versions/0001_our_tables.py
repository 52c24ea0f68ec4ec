"""Our tables as the releases before migrations made them: the audit trail's run and score tables with the
score table's index (regrade/audit.py), and the LMS identities (lms/identity.py).

The statements are those releases' own, each `IF NOT EXISTS`: a gradebook they wrote may hold any of these
tables already (each was made on its first use), and keeps them and their rows. The identity table's is
the statement SQLAlchemy emitted for its `Table` there.
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""CREATE TABLE IF NOT EXISTS autograder_grading_run (
        id VARCHAR(32) PRIMARY KEY,
        assignment VARCHAR(128) NOT NULL,
        kind VARCHAR(16) NOT NULL,
        started_at VARCHAR(32) NOT NULL,
        os_user VARCHAR(128) NOT NULL,
        grader_version VARCHAR(64) NOT NULL,
        options VARCHAR(1024) NOT NULL)""")
    op.execute("""CREATE TABLE IF NOT EXISTS autograder_grading_score (
        run_id VARCHAR(32) NOT NULL REFERENCES autograder_grading_run (id),
        student_id VARCHAR(128) NOT NULL,
        score_before FLOAT,
        score_after FLOAT)""")
    op.execute("CREATE INDEX IF NOT EXISTS autograder_grading_score_run ON autograder_grading_score (run_id)")
    op.execute("""CREATE TABLE IF NOT EXISTS autograder_lms_identity (
        student_id VARCHAR(128) NOT NULL,
        sis_user_id VARCHAR(128),
        login_id VARCHAR(128),
        section VARCHAR(255),
        lti_user_id VARCHAR(255),
        PRIMARY KEY (student_id))""")


def downgrade() -> None:
    op.drop_table("autograder_lms_identity")
    op.drop_index("autograder_grading_score_run", table_name="autograder_grading_score")
    op.drop_table("autograder_grading_score")
    op.drop_table("autograder_grading_run")
