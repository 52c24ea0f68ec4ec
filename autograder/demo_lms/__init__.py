"""A small real LTI 1.3 platform on loopback (lti1p3platform behind a local HTTP server): the tests' strict
platform, and the demo LMS `autograder hub --demo-lms` starts."""
