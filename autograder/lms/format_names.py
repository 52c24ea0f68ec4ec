"""The export formats' names, as `autograder export --to` takes them, declared once: the command's parser lists
them without loading the formats' modules (which load nbgrader), and `lms.exports.FORMATS` checks that its
plugins are exactly these."""

FORMAT_NAMES = ("canvas", "moodle", "blackboard", "brightspace", "csv")
