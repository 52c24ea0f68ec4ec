"""One module per `autograder` subcommand; each defines `register(subparsers)`."""
