//! Languages as data: a third language is a folder and nothing else, and every
//! way of naming a language that cannot be used is one clear error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn attentive(dir: &Path, args: &[&str]) -> Output {
    let config = dir.join("attentive.toml");
    std::fs::write(&config, "").expect("config");
    Command::new(env!("CARGO_BIN_EXE_attentive"))
        .arg("--config")
        .arg(&config)
        .args(args)
        .env("ATTENTIVE_SIM__TIME_SCALE", "0")
        .output()
        .expect("run attentive")
}

/// `attentive eval --brain rules` on one script written from `toml`.
fn eval_script(dir: &Path, name: &str, toml: &str) -> Output {
    let script = dir.join(name);
    std::fs::write(&script, toml).expect("script");
    attentive(
        dir,
        &["eval", "--brain", "rules", script.to_str().expect("utf-8")],
    )
}

/// `attentive understand` of one turn ("merci") in the language of `folder`.
fn understand_merci(dir: &Path, folder: &Path) -> Output {
    attentive(
        dir,
        &[
            "understand",
            "--language",
            folder.to_str().expect("utf-8"),
            "Felix said to Daniel: merci",
        ],
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A tiny made-up language, "xx": one thanks sentence, the robot's answer to it.
fn tiny_language(dir: &Path) -> PathBuf {
    let folder = dir.join("xx");
    std::fs::create_dir_all(&folder).expect("folder");
    // It borrows the English characters by path: a language names where its parts are.
    std::fs::write(
        folder.join("language.toml"),
        format!(
            "name = \"Tiny\"\nrecogniser = \"en\"\nrecogniser_people = \"{{names}}.\"\n\
             recogniser_things = \"{{things}}.\"\ncharacters = \"{ROOT}/characters\"\n\
             [judge]\nbusy = [\"occupé\"]\nreach = [\"loin\"]\nsee = [\"voir\"]\n\
             explaining = [\"parce que\"]\n\
             [voice]\nespeak = \"fr\"\npeople = [\"fr\", \"fr+f3\"]\n"
        ),
    )
    .expect("manifest");
    std::fs::write(
        folder.join("sentences.toml"),
        "[normalize]\n[slots]\nobject = \"object\"\n\n[[intent]]\nact = \"thanks\"\n\
         sentences = [\"(merci|merci beaucoup)\"]\n",
    )
    .expect("sentences");
    let english = std::fs::read_to_string(Path::new(ROOT).join("languages/en/speech.toml"))
        .expect("English speech");
    let tiny = english.replace("thanks = \"You are welcome.\"", "thanks = \"De rien.\"");
    assert_ne!(tiny, english, "the English thanks sentence moved");
    std::fs::write(folder.join("speech.toml"), tiny).expect("speech");
    folder
}

#[test]
fn a_third_language_is_a_folder_of_data() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = tiny_language(dir.path());
    let language = folder.to_str().expect("utf-8");
    let out = attentive(
        dir.path(),
        &[
            "--json",
            "understand",
            "--language",
            language,
            "Felix said to the_robot: merci beaucoup",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"act\":\"thanks\""),
        "{}",
        text(&out.stdout)
    );
    let script = dir.path().join("merci.toml");
    std::fs::write(
        &script,
        "scene = \"softdrinks\"\n[[turn]]\ntext = \"Felix said to the_robot: merci\"\n\
         expect = \"answer\"\n",
    )
    .expect("script");
    let out = attentive(
        dir.path(),
        &[
            "--json",
            "sim",
            "--brain",
            "rules",
            "--language",
            language,
            "--script",
            script.to_str().expect("utf-8"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("De rien.") && !said.contains("You are welcome"),
        "{said}"
    );
}

#[test]
fn an_unknown_language_names_the_ones_there_are() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = attentive(
        dir.path(),
        &["understand", "--language", "zz", "Felix said to Daniel: hi"],
    );
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(
        error.contains("there is no language 'zz'") && error.contains("en"),
        "{error}"
    );
    assert!(!error.contains("panicked"), "{error}");
}

#[test]
fn a_broken_language_file_is_named_with_its_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = tiny_language(dir.path());
    std::fs::write(
        folder.join("sentences.toml"),
        "[normalize]\n[slots]\nobject = \"object\"\n\n[[intent]]\nact = \"thanks\"\n\
         sentences = [\"(merci|merci beaucoup\"]\n",
    )
    .expect("broken sentences");
    let out = understand_merci(dir.path(), &folder);
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(
        error.contains("sentences.toml:7:") && error.contains("unbalanced"),
        "{error}"
    );
    let speech = folder.join("speech.toml");
    let broken = std::fs::read_to_string(&speech)
        .expect("speech")
        .replace("farewell = ", "farewel = ");
    std::fs::write(&speech, broken).expect("broken speech");
    std::fs::write(
        folder.join("sentences.toml"),
        "[normalize]\n[slots]\nobject = \"object\"\n\n[[intent]]\nact = \"thanks\"\n\
         sentences = [\"merci\"]\n",
    )
    .expect("sentences");
    let out = understand_merci(dir.path(), &folder);
    let error = text(&out.stderr);
    assert!(
        error.contains("speech.toml:") && error.contains("[social] farewel: not a sentence"),
        "{error}"
    );
}

#[test]
fn a_script_in_a_language_without_data_is_refused_before_it_runs() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = eval_script(
        dir.path(),
        "klingon.toml",
        "language = \"tlh\"\nscene = \"softdrinks\"\n[[turn]]\n\
         text = \"Felix said to Daniel: Qapla'\"\nexpect = \"silent\"\n",
    );
    assert!(!out.status.success());
    let error = text(&out.stderr);
    assert!(
        error.contains("klingon.toml") && error.contains("there is no language 'tlh'"),
        "{error}"
    );
}

#[test]
fn an_english_script_may_say_so() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = eval_script(
        dir.path(),
        "english.toml",
        "language = \"en\"\nscene = \"softdrinks\"\n[[turn]]\n\
         text = \"Felix said to the_robot: thank you\"\nexpect = \"answer\"\n",
    );
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}
