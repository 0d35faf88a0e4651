//! Evaluation: dialogue scripts, the judge, the benchmark grid and reports.

pub mod script;
