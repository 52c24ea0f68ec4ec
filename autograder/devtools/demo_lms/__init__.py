"""A small real LTI 1.3 platform on loopback (lti1p3platform behind a local HTTP server): the tests' strict
platform, and the demo LMS of `make hub` (demo_loop.py). Tooling: the framework never imports it."""
