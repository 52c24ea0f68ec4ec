"""The pieces a JupyterHub needs to run a course: LTI 1.3 login, spawner, exchange, services."""
