"""Grader support: what hidden graders, self-checks and the sandbox's student side use to judge an answer, name its
mistake and say what a raised exception means. A course's graders import from here; its graders live in their own
package (`autograder.graders.<assignment>`).
"""
