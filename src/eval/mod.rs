//! Evaluation: dialogue scripts, the judge, the benchmark grid and reports.

pub mod judge;
pub mod report;
pub mod run;
pub mod script;
