//! Arbitrary bytes and mutated valid files through the loaders a lab edits by hand: the
//! scene, the kinds, the robot description and the URDF it names. Every input ends in a
//! value or an error sentence that names its file; never a panic. The first byte picks
//! the loader; the seeds are the shipped files behind their selector byte (`fuzz/seeds/descriptions/`).
//! Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run -s none descriptions fuzz/corpus/descriptions fuzz/seeds/descriptions -- -runs=1000000`.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use attentive::twin::kinds::KindCatalog;
use attentive::twin::kinematics::RobotDescription;
use attentive::twin::scene;
use libfuzzer_sys::fuzz_target;

/// A folder of its own per process, holding the URDF under test and a description naming it.
fn workdir() -> &'static (PathBuf, KindCatalog) {
    static DIR: OnceLock<(PathBuf, KindCatalog)> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("attentive-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/robots");
        std::fs::copy(shipped.join("panda_bimanual.urdf"), dir.join("panda.urdf"))
            .expect("the shipped Panda URDF");
        let kinds = KindCatalog::load_shipped().expect("the shipped kinds load");
        (dir, kinds)
    })
}

/// The Panda pair's description with its URDF replaced by the one under test.
const DESCRIPTION: &str = r#"name = "fuzz"
urdf = "fuzz.urdf"
[arms.left]
base_link = "left_panda_link0"
tip_link = "left_tcp"
home_deg = [117, 65, -117, -146, 94, 137, -26]
[arms.right]
base_link = "right_panda_link0"
tip_link = "right_tcp"
home_deg = [-118, 63, 117, -146, -93, 138, -64]
[hand]
fingers = 2
[head]
pan_joint = "head_pan_joint"
tilt_joint = "head_tilt_joint"
"#;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (dir, kinds) = workdir();
    // Every error starts with the file that holds the mistake ("<scene>" for text).
    let named = |e: String| {
        let file = e.split(": ").next().unwrap_or_default();
        assert!(!file.trim().is_empty() && file != e, "the error names no file: {e}");
    };
    match which % 4 {
        0 => {
            if let Err(e) = scene::from_toml_str(&text, kinds) {
                named(e.to_string());
            }
        }
        1 => {
            if let Err(e) = KindCatalog::from_toml_str(&text, "kinds.toml") {
                named(e.to_string());
            }
        }
        2 => {
            // A description whose URDF is the shipped Panda's (copied in by the corpus step).
            let origin = dir.join("description.toml");
            let text = text.replace("panda_bimanual.urdf", "panda.urdf");
            if let Err(e) = RobotDescription::from_toml_str(&text, &origin.display().to_string()) {
                named(e.to_string());
            }
        }
        _ => {
            let urdf = dir.join("fuzz.urdf");
            if std::fs::write(&urdf, rest).is_err() {
                return;
            }
            let origin = dir.join("fuzz.toml");
            if let Err(e) = RobotDescription::from_toml_str(DESCRIPTION, &origin.display().to_string()) {
                named(e.to_string());
            }
        }
    }
});
