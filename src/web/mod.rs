//! The live page served by the daemon at `GET /`: plain HTML, CSS and
//! JavaScript embedded in the binary (no build step, no outside fetches).

pub mod layout;

use std::path::Path;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");
const VIEW3D: &str = include_str!("assets/view3d.js");

/// The three.js files the page loads, and where each lies under the install folder.
const THREE_FILES: [(&str, &str); 3] = [
    ("three.min.js", "three.min.js"),
    ("OrbitControls.js", "examples/js/controls/OrbitControls.js"),
    ("CSS2DRenderer.js", "examples/js/renderers/CSS2DRenderer.js"),
];

/// `GET /`.
pub async fn index() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        INDEX,
    )
}

/// `GET /app.js`.
pub async fn script() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        SCRIPT,
    )
}

/// `GET /view3d.js`.
pub async fn view3d() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        VIEW3D,
    )
}

/// `GET /vendor/three/{file}`: one of the three.js files from `dir` (the
/// system's install; nothing is fetched from outside), or 404 saying what to install.
pub async fn three(dir: &Path, file: &str) -> Response {
    let Some((_, relative)) = THREE_FILES.iter().find(|(name, _)| *name == file) else {
        return (StatusCode::NOT_FOUND, "not a three.js file the page uses\n").into_response();
    };
    let path = dir.join(relative);
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                (header::CACHE_CONTROL, "max-age=86400"),
            ],
            bytes,
        )
            .into_response(),
        Err(error) => (
            StatusCode::NOT_FOUND,
            format!(
                "three.js is not installed ({}: {error}); on Debian: apt install libjs-three, or bash scripts/setup.sh\n",
                path.display()
            ),
        )
            .into_response(),
    }
}

/// Bytes of the installed three.js files the page loads (0 for a missing one).
pub fn three_weight(dir: &Path) -> u64 {
    THREE_FILES
        .iter()
        .filter_map(|(_, relative)| std::fs::metadata(dir.join(relative)).ok())
        .map(|m| m.len())
        .sum()
}

/// `GET /style.css`.
pub async fn style() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        STYLE,
    )
}

/// Bytes of the page with its script and style (the page weight).
pub fn page_weight() -> usize {
    INDEX.len() + SCRIPT.len() + STYLE.len() + VIEW3D.len()
}
