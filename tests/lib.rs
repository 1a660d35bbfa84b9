//! Helpers shared by the black-box tests.
