//! Evaluation: dialogue scripts, the judge, the benchmark grid and reports.

pub mod cost;
pub mod figures;
pub mod judge;
pub mod progress;
pub mod report;
pub mod run;
pub mod sample;
pub mod script;
pub mod spoken;
