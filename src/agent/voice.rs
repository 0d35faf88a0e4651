//! What the agent needs of the robot's voice: speak without blocking the
//! loop, and let a physical action wait until the explanation was heard.

use std::future::Future;
use std::pin::Pin;

/// The robot's voice as the agent sees it (implemented in `voice/`).
pub trait Mouth: Send + Sync {
    /// Starts saying `text` to `to`, queued after anything still being said; returns at once.
    fn say(&self, to: &str, text: &str);
    /// Resolves when everything said so far has been played, stopped or has failed.
    fn until_quiet(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
    /// Stops what is being said and drops what is queued.
    fn hush(&self);
}
