"""Hidden graders for `hidden_state_activation`."""
