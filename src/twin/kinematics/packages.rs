//! Where a URDF's `package://NAME/...` mesh paths point. ROS resolves them through its
//! package index; without ROS the folder of package NAME is, in this order: the one the
//! description names in `[packages]`; `NAME` under a root of `ROS_PACKAGE_PATH`;
//! `share/NAME` under a prefix of `AMENT_PREFIX_PATH`; a folder of the URDF's own path
//! named NAME (the URDF sits inside its package, as in `NAME/urdf/robot.urdf`); `NAME`
//! beside one of those folders (packages copied next to each other).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The places package folders are looked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackageFolders {
    /// Folders named by the description, by package name.
    named: BTreeMap<String, PathBuf>,
    /// Roots holding package folders (`ROS_PACKAGE_PATH`).
    roots: Vec<PathBuf>,
    /// Install prefixes holding `share/NAME` (`AMENT_PREFIX_PATH`).
    prefixes: Vec<PathBuf>,
}

impl PackageFolders {
    /// The description's own folders and the environment's search paths.
    pub fn from_env(named: BTreeMap<String, PathBuf>) -> Self {
        let var = |name: &str| std::env::var(name).ok();
        Self::new(
            named,
            var("ROS_PACKAGE_PATH").as_deref(),
            var("AMENT_PREFIX_PATH").as_deref(),
        )
    }

    /// Named folders and search paths as `ROS_PACKAGE_PATH` and `AMENT_PREFIX_PATH` write
    /// them (folders separated by `:`).
    pub fn new(
        named: BTreeMap<String, PathBuf>,
        ros_package_path: Option<&str>,
        ament_prefix_path: Option<&str>,
    ) -> Self {
        let split = |v: Option<&str>| -> Vec<PathBuf> {
            v.unwrap_or("")
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect()
        };
        Self {
            named,
            roots: split(ros_package_path),
            prefixes: split(ament_prefix_path),
        }
    }

    /// The file a `package://NAME/REST` path names, for a URDF in `urdf_dir`; or why none.
    pub fn resolve(&self, url: &str, urdf_dir: &Path) -> Result<PathBuf, String> {
        let rest = url.strip_prefix("package://").unwrap_or(url);
        let (name, inside) = rest.split_once('/').unwrap_or((rest, ""));
        if name.is_empty() || inside.is_empty() {
            return Err("a package:// path needs a package name and a file in it".into());
        }
        let folder = self.folder(name, urdf_dir).ok_or_else(|| {
            format!(
                "package '{name}' not found (looked in [packages] of the description, \
                 ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the URDF's folders); \
                 name its folder under [packages] in the description"
            )
        })?;
        Ok(folder.join(inside))
    }

    /// The folder of package `name`, the first place that has one.
    fn folder(&self, name: &str, urdf_dir: &Path) -> Option<PathBuf> {
        if let Some(dir) = self.named.get(name) {
            // Named explicitly: used even when missing, so the error says which file.
            return Some(dir.clone());
        }
        let roots = self.roots.iter().map(|r| r.join(name));
        let prefixes = self.prefixes.iter().map(|p| p.join("share").join(name));
        let own = urdf_dir
            .ancestors()
            .filter(|d| d.file_name().is_some_and(|f| f == name));
        let beside = urdf_dir.ancestors().map(|d| d.join(name));
        roots
            .chain(prefixes)
            .chain(own.map(Path::to_path_buf))
            .chain(beside)
            .find(|d| d.is_dir())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders_in(tmp: &Path) -> PathBuf {
        let pkg = tmp.join("ws").join("src").join("my_arm");
        std::fs::create_dir_all(pkg.join("urdf")).unwrap_or_default();
        std::fs::create_dir_all(pkg.join("meshes")).unwrap_or_default();
        std::fs::create_dir_all(tmp.join("opt").join("share").join("gripper")).unwrap_or_default();
        pkg
    }

    #[test]
    fn package_paths_resolve_in_order_and_name_what_is_missing() {
        let tmp = std::env::temp_dir().join(format!("attentive-packages-{}", std::process::id()));
        let pkg = folders_in(&tmp);
        let urdf_dir = pkg.join("urdf");
        let none = PackageFolders::new(BTreeMap::new(), None, None);
        // Inside its own package, and a package beside it.
        assert_eq!(
            none.resolve("package://my_arm/meshes/a.stl", &urdf_dir),
            Ok(pkg.join("meshes/a.stl"))
        );
        let ws = tmp.join("ws").join("src");
        std::fs::create_dir_all(ws.join("other")).unwrap_or_default();
        assert_eq!(
            none.resolve("package://other/x.stl", &urdf_dir),
            Ok(ws.join("other/x.stl"))
        );
        // The search paths.
        let env = PackageFolders::new(
            BTreeMap::new(),
            Some(&format!("/nonexistent:{}", ws.display())),
            Some(&tmp.join("opt").display().to_string()),
        );
        assert_eq!(
            env.resolve("package://gripper/m/g.stl", Path::new("/")),
            Ok(tmp.join("opt/share/gripper/m/g.stl"))
        );
        assert_eq!(
            env.resolve("package://my_arm/m.stl", Path::new("/")),
            Ok(pkg.join("m.stl"))
        );
        // Named in the description: first, even over a found one.
        let named = PackageFolders::new(
            BTreeMap::from([("my_arm".to_string(), PathBuf::from("/elsewhere"))]),
            None,
            None,
        );
        assert_eq!(
            named.resolve("package://my_arm/m.stl", &urdf_dir),
            Ok(PathBuf::from("/elsewhere/m.stl"))
        );
        let missing = none.resolve("package://ur_description/meshes/base.stl", Path::new("/"));
        let why = missing.err().unwrap_or_default();
        assert!(why.contains("package 'ur_description' not found"), "{why}");
        assert!(why.contains("[packages]"), "{why}");
        assert!(none.resolve("package://only_a_name", &urdf_dir).is_err());
        std::fs::remove_dir_all(&tmp).unwrap_or_default();
    }
}
