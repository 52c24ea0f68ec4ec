"""Hidden graders for `rnn_update_equations`."""
