"""Issue 44: regrade requests. A student's question about one graded cell of theirs, in a sentence, and the
instructor's answer; at most one open request per (question, student), which a partial unique index holds even
when two requests arrive at once (autograder/by_question/regrade_requests.py)."""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

OPEN = sa.text("answered_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "autograder_regrade_request",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("assignment", sa.String(128), nullable=False),
        sa.Column("notebook", sa.String(128), nullable=False),
        sa.Column("cell", sa.String(128), nullable=False),  # the grade cell's nbgrader id: the question
        sa.Column("student_id", sa.String(128), nullable=False),  # the hub's user who asked, never a form's field
        sa.Column("text", sa.String(2000), nullable=False),  # what the student asked
        sa.Column("asked_at", sa.String(32), nullable=False),
        sa.Column("score_asked", sa.Float, nullable=True),  # the question's score when asked
        sa.Column("answer", sa.String(4000), nullable=True),  # the instructor's reply; NULL while open
        sa.Column("answered_at", sa.String(32), nullable=True),
        sa.Column("answered_by", sa.String(128), nullable=True),
        sa.Column("score_before", sa.Float, nullable=True),  # when the answer changed the score: from,
        sa.Column("score_after", sa.Float, nullable=True),  # to (an override, its reason the request)
    )
    op.create_index("autograder_regrade_request_question", "autograder_regrade_request",
                    ["assignment", "notebook", "cell"])
    op.create_index("autograder_regrade_request_student", "autograder_regrade_request", ["student_id"])
    op.create_index("autograder_regrade_request_one_open", "autograder_regrade_request",
                    ["assignment", "notebook", "cell", "student_id"], unique=True,
                    sqlite_where=OPEN, postgresql_where=OPEN)


def downgrade() -> None:
    op.drop_index("autograder_regrade_request_one_open", table_name="autograder_regrade_request")
    op.drop_index("autograder_regrade_request_student", table_name="autograder_regrade_request")
    op.drop_index("autograder_regrade_request_question", table_name="autograder_regrade_request")
    op.drop_table("autograder_regrade_request")
