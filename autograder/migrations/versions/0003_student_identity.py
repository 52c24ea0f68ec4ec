"""Issue 29: one identity per student. A person who enters from an LMS by an LTI 1.3 launch is known by
(issuer, deployment id, LMS user id `sub`); the identity table gains the launch's issuer and deployment beside
the `lti_user_id` a roster import already fills, and that key is unique, so a key names one student (whose
`student_id` is also their JupyterHub and OS user name). A roster row carries no issuer or deployment: it is
bound to them on the student's first launch (`lms.launch_identity`). NULLs are distinct in a unique index, in
SQLite as in PostgreSQL, so the roster's unbound rows never collide."""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("autograder_lms_identity") as table:
        table.add_column(sa.Column("lti_issuer", sa.String(255)))
        table.add_column(sa.Column("lti_deployment_id", sa.String(255)))
    op.create_index("autograder_lms_identity_launch", "autograder_lms_identity",
                    ["lti_issuer", "lti_deployment_id", "lti_user_id"], unique=True)


def downgrade() -> None:
    op.drop_index("autograder_lms_identity_launch", table_name="autograder_lms_identity")
    with op.batch_alter_table("autograder_lms_identity") as table:
        table.drop_column("lti_deployment_id")
        table.drop_column("lti_issuer")
