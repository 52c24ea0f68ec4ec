"""Issue 39: one grade, the same everywhere. What each student's grade of each assignment said when it was last
settled (`grades.arithmetic.Grade.statement`, as a digest): a command that finds it says something else now (a due
date moved, the late rules edited) marks the pages made before as out of date, even where the score is the same."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "autograder_settled_grade",
        sa.Column("assignment", sa.String(128), primary_key=True),
        sa.Column("student_id", sa.String(128), primary_key=True),
        sa.Column("statement", sa.String(64), nullable=False),  # sha256 of the grade's statement, hex
    )


def downgrade() -> None:
    op.drop_table("autograder_settled_grade")
