"""Issue 30: grades sent as they are made. The outbox: one row per change of a student's counted score,
written in the transaction that changed it, sent to the LMS by `autograder push --follow` (lms/outbox.py,
lms/outbox_sender.py). And whether a student is still enrolled in the LMS course, as the last roster sync
found them (`lms_status` on the identity table: a student who left keeps their grades, flagged)."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "autograder_lms_outbox",
        # The order changes were made in: a newer row of a (student, assignment) supersedes every older one.
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("assignment", sa.String(128), nullable=False),
        sa.Column("student_id", sa.String(128), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("max_score", sa.Float, nullable=False),
        sa.Column("submitted_at", sa.String(32)),  # the submission's time, UTC
        sa.Column("comment", sa.String(1024), nullable=False),
        sa.Column("origin", sa.String(32), nullable=False),  # what changed the score: grade, watch, override, ...
        sa.Column("created_at", sa.String(32), nullable=False),  # UTC, sortable text as the audit trail's
        sa.Column("state", sa.String(16), nullable=False),  # pending, sent, failed, superseded
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_error", sa.String(512)),
        sa.Column("next_try_at", sa.String(32)),
        sa.Column("sent_at", sa.String(32)),
    )
    op.create_index("autograder_lms_outbox_pair", "autograder_lms_outbox", ["assignment", "student_id", "seq"])
    op.create_index("autograder_lms_outbox_state", "autograder_lms_outbox", ["state", "next_try_at"])
    with op.batch_alter_table("autograder_lms_identity") as table:
        table.add_column(sa.Column("lms_status", sa.String(16)))


def downgrade() -> None:
    with op.batch_alter_table("autograder_lms_identity") as table:
        table.drop_column("lms_status")
    op.drop_index("autograder_lms_outbox_state", table_name="autograder_lms_outbox")
    op.drop_index("autograder_lms_outbox_pair", table_name="autograder_lms_outbox")
    op.drop_table("autograder_lms_outbox")
