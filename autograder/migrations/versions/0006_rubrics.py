"""Issue 44: grading by question. A question's rubric items (points up or down, a comment the student reads), which
items each student's answer was given, and each (question, student) grade's version, which a grader's change must
name so that two graders never overwrite each other silently (autograder/by_question/rubric.py)."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "autograder_rubric_item",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("assignment", sa.String(128), nullable=False),
        sa.Column("notebook", sa.String(128), nullable=False),
        sa.Column("cell", sa.String(128), nullable=False),  # the grade cell's nbgrader id: the question
        sa.Column("position", sa.Integer, nullable=False),  # its key on the page: 1 is the first item
        sa.Column("points", sa.Float, nullable=False),  # added to the question's score (negative: taken off)
        sa.Column("comment", sa.String(2000), nullable=False),  # what the student reads
        sa.Column("version", sa.Integer, nullable=False),  # raised by every edit: an edit names the one it saw
        sa.Column("removed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("changed_at", sa.String(32), nullable=False),
        sa.Column("changed_by", sa.String(128), nullable=False),
    )
    op.create_index("autograder_rubric_item_question", "autograder_rubric_item", ["assignment", "notebook", "cell"])
    op.create_table(
        "autograder_rubric_applied",
        sa.Column("item_id", sa.Integer, primary_key=True),
        sa.Column("student_id", sa.String(128), primary_key=True),
        sa.Column("applied_at", sa.String(32), nullable=False),
        sa.Column("applied_by", sa.String(128), nullable=False),
    )
    op.create_table(
        "autograder_question_grade",
        sa.Column("assignment", sa.String(128), primary_key=True),
        sa.Column("notebook", sa.String(128), primary_key=True),
        sa.Column("cell", sa.String(128), primary_key=True),
        sa.Column("student_id", sa.String(128), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),  # raised by every change of this student's items
        sa.Column("graded_at", sa.String(32), nullable=False),
        sa.Column("graded_by", sa.String(128), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("autograder_question_grade")
    op.drop_table("autograder_rubric_applied")
    op.drop_index("autograder_rubric_item_question", table_name="autograder_rubric_item")
    op.drop_table("autograder_rubric_item")
