//! One thread owns the store; everyone else sends it jobs. SQLite work never
//! runs on the async runtime, and writes are serialised without locks.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use super::{MemoryError, Store};

type Job = Box<dyn FnOnce(&mut Store) + Send>;

/// A handle to the memory store (cheap to clone).
#[derive(Clone)]
pub struct Memory {
    jobs: mpsc::Sender<Job>,
    path: PathBuf,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memory({})", self.path.display())
    }
}

impl Memory {
    /// Opens the store at `path` and starts its owner thread.
    pub fn open(path: &Path) -> Result<Self, MemoryError> {
        Self::own(Store::open(path)?)
    }

    /// A store in memory only, gone with the handle (an evaluation's episode).
    pub fn open_in_memory() -> Result<Self, MemoryError> {
        Self::own(Store::open_in_memory()?)
    }

    /// Starts the thread that owns `store`.
    fn own(mut store: Store) -> Result<Self, MemoryError> {
        let path = store.path().to_path_buf();
        let (jobs, inbox) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("memory".into())
            .spawn(move || {
                for job in inbox {
                    job(&mut store);
                }
            })
            .map_err(|e| MemoryError::Open {
                path: path.clone(),
                reason: format!("cannot start its thread: {e}"),
            })?;
        Ok(Self { jobs, path })
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `work` on the store and waits for it without blocking the runtime.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Store) -> T + Send + 'static,
    ) -> Result<T, MemoryError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Box::new(move |store| {
                let _ = reply.send(work(store));
            }))
            .map_err(|_| MemoryError::Closed)?;
        answer.await.map_err(|_| MemoryError::Closed)
    }

    /// Runs `work` on the store and blocks until it is done (outside async code).
    pub fn run_blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Store) -> T + Send + 'static,
    ) -> Result<T, MemoryError> {
        let (reply, answer) = mpsc::channel();
        self.jobs
            .send(Box::new(move |store| {
                let _ = reply.send(work(store));
            }))
            .map_err(|_| MemoryError::Closed)?;
        answer.recv().map_err(|_| MemoryError::Closed)
    }
}
