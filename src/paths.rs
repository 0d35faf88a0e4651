//! Where the product's data lives (`scenes/`, `characters/`, `prompts/`), and
//! how a name such as `softdrinks` becomes a file.

use std::path::{Path, PathBuf};

/// The folder holding `scenes/`, `characters/` and `prompts/`.
///
/// Looked up in order: `ATTENTIVE_HOME`; the current directory if it has
/// `scenes/`; the folders above the executable (an installed or a
/// `target/debug` binary); the XDG data dir (`$XDG_DATA_HOME/attentive`,
/// `~/.local/share/attentive`); the source tree this binary was built from.
pub fn data_root() -> PathBuf {
    if let Some(home) = std::env::var_os("ATTENTIVE_HOME") {
        return PathBuf::from(home);
    }
    if let Ok(cwd) = std::env::current_dir() {
        if cwd.join("scenes").is_dir() && cwd.join("prompts").is_dir() {
            return cwd;
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            if dir.join("scenes").is_dir() && dir.join("prompts").is_dir() {
                return dir.to_path_buf();
            }
            for share in ["share/attentive", "../share/attentive"] {
                let candidate = dir.join(share);
                if candidate.join("scenes").is_dir() {
                    return candidate;
                }
            }
        }
    }
    if let Some(xdg) = xdg_data_dir().filter(|d| d.join("scenes").is_dir()) {
        return xdg;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `$XDG_DATA_HOME/attentive`, else `~/.local/share/attentive`.
pub fn xdg_data_dir() -> Option<PathBuf> {
    match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(xdg) => Some(PathBuf::from(xdg).join("attentive")),
        None => std::env::var_os("HOME")
            .filter(|v| !v.is_empty())
            .map(|home| PathBuf::from(home).join(".local/share/attentive")),
    }
}

/// A data file named by a relative path (e.g. `models/ggml-tiny.en.bin`), found
/// the way scenes are: under the data root, else the XDG data dir; never
/// relative to the current directory (a service starts in `/`). Absolute
/// paths are kept. When no candidate exists, the data root's path is returned
/// so that the error names where the file was expected.
pub fn data_file(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let under_root = data_root().join(path);
    if under_root.exists() {
        return under_root;
    }
    match xdg_data_dir().map(|d| d.join(path)) {
        Some(candidate) if candidate.exists() => candidate,
        _ => under_root,
    }
}

/// Resolves `spec` as a file path if it looks like one or exists, else as a
/// name under `<data root>/<folder>/` with the given extension.
pub fn resolve(spec: &str, folder: &str, extension: &str) -> PathBuf {
    let as_path = Path::new(spec);
    if as_path.exists() || spec.contains('/') || spec.ends_with(&format!(".{extension}")) {
        return as_path.to_path_buf();
    }
    data_root().join(folder).join(format!("{spec}.{extension}"))
}

/// Names of the files with `extension` in `<data root>/<folder>/`, sorted.
pub fn available(folder: &str, extension: &str) -> Vec<String> {
    available_in(&data_root().join(folder), extension)
}

/// Names of the files with `extension` in `dir`, sorted.
pub fn available_in(dir: &Path, extension: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            (path.extension()? == extension)
                .then(|| path.file_stem()?.to_str().map(str::to_string))
                .flatten()
        })
        .collect();
    names.sort();
    names
}
