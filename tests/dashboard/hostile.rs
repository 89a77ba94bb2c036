//! A fake API server for the dashboard's hostile-client tests: on a free
//! loopback port, it answers every request with a 403 whose message is
//! `message` (what no real API server would write: it plays an attacker),
//! and a kubeconfig whose one context, named `context`, points at it.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// Starts the fake; returns its URL.
pub fn forbidding(message: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake server");
    let port = listener.local_addr().expect("address").port();
    let body = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": "Forbidden", "code": 403,
    })
    .to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A kubeconfig (JSON, which YAML reads) in `dir` whose one context,
/// `context`, reads `server` with a token.
pub fn kubeconfig(dir: &Path, context: &str, server: &str) -> PathBuf {
    let config = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": context,
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": context, "context": {"cluster": "c", "user": "u", "namespace": "ns"}}],
    });
    let path = dir.join("hostile-kubeconfig");
    std::fs::write(&path, config.to_string()).expect("write the kubeconfig");
    path
}
