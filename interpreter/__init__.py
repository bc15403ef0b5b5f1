"""The reference interpreter: the meaning of the IR over concrete values, with the state API of
OpenSpiel so that it can be compared move by move with the generated engines."""
