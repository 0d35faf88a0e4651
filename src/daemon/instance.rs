//! The daemon's claim on its state folder: an advisory lock on
//! `<state_dir>/daemon.lock`, held while it runs, with the address of its API
//! inside. `attentive memory forget` uses it to tell whether a daemon writes
//! the event log now: then the erasure goes through that daemon's API (which
//! redacts the log under its own lock and logs `memory_erased`); otherwise
//! the command takes the claim itself while it rewrites the files.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};

/// The lock file in the state folder.
pub const FILE: &str = "daemon.lock";

/// A held claim; released when dropped (or when the process ends, however it ends).
#[derive(Debug)]
pub struct Claim {
    file: File,
    path: PathBuf,
}

/// Who holds the state folder.
#[derive(Debug)]
pub enum Holder {
    /// Nobody else: this process holds it now.
    Us(Claim),
    /// A running daemon, whose API is at this URL (`None` while it is still starting).
    Daemon(Option<String>),
}

fn open(state_dir: &Path) -> io::Result<(File, PathBuf)> {
    std::fs::create_dir_all(state_dir)?;
    let path = state_dir.join(FILE);
    // Never truncated on open: a running daemon's address is in there.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)?;
    Ok((file, path))
}

impl Claim {
    /// Takes the claim on `state_dir` if nobody holds it; otherwise says who does.
    pub fn try_take(state_dir: &Path) -> io::Result<Holder> {
        let (mut file, path) = open(state_dir)?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0)?;
                Ok(Holder::Us(Claim { file, path }))
            }
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                file.read_to_string(&mut text)?;
                let url = text.trim();
                Ok(Holder::Daemon((!url.is_empty()).then(|| url.to_string())))
            }
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Writes the API's address into the file, for `attentive memory` to find.
    pub fn announce(&mut self, addr: SocketAddr) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file
            .write_all(format!("{}\n", local_url(addr)).as_bytes())?;
        self.file.sync_data()
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The URL a process on this machine reaches the API at (an unspecified
/// listen address such as `0.0.0.0` is reached on loopback).
pub fn local_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_sees_the_holder_and_its_address() {
        let dir = tempfile::tempdir().unwrap();
        let Holder::Us(mut claim) = Claim::try_take(dir.path()).unwrap() else {
            panic!("the first taker gets the claim");
        };
        assert!(matches!(
            Claim::try_take(dir.path()).unwrap(),
            Holder::Daemon(None)
        ));
        claim.announce("0.0.0.0:8765".parse().unwrap()).unwrap();
        match Claim::try_take(dir.path()).unwrap() {
            Holder::Daemon(Some(url)) => assert_eq!(url, "http://127.0.0.1:8765"),
            other => panic!("{other:?}"),
        }
        drop(claim);
        assert!(matches!(
            Claim::try_take(dir.path()).unwrap(),
            Holder::Us(_)
        ));
    }
}
