//! The previous container's log of a pod's failing container, for
//! `explain`'s "Last words": one `pods/log` GET with `previous=true`,
//! `tailLines` [`TAIL_LINES`] and `limitBytes` [`LIMIT_BYTES`] (16 KiB).
//!
//! The API server proxies the request to the kubelet of the pod's node.
//! Nothing here fails the command: a forbidden or gone log, or any other
//! failure, is a [`PreviousLog`] value that `explain` words in one line.

use crate::snapshot::{LOG_LIMIT_BYTES as LIMIT_BYTES, LOG_TAIL_LINES as TAIL_LINES, PreviousLog};
use futures::AsyncReadExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, LogParams};

/// Reads the last [`TAIL_LINES`] lines of the previous container
/// `container` of pod `namespace/pod`.
pub(crate) async fn previous_log(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    container: &str,
) -> PreviousLog {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let params = LogParams {
        container: Some(container.to_string()),
        previous: true,
        tail_lines: Some(TAIL_LINES as i64),
        limit_bytes: Some(LIMIT_BYTES as i64),
        ..LogParams::default()
    };
    let stream = match pods.log_stream(pod, &params).await {
        Ok(stream) => stream,
        Err(err) => return failure(err),
    };
    let mut body = Vec::new();
    // The server stops at limitBytes; the client does too, should it not.
    let read = stream.take(LIMIT_BYTES as u64).read_to_end(&mut body).await;
    if let Err(err) = read {
        return PreviousLog::Failed(format!("reading the log: {err}"));
    }
    lines_of(&body)
}

/// The last [`TAIL_LINES`] lines of an answer, text read leniently (a cut
/// may split a character).
pub(crate) fn lines_of(body: &[u8]) -> PreviousLog {
    let cut = body.len() >= LIMIT_BYTES;
    let text = String::from_utf8_lossy(body);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.len() > TAIL_LINES {
        lines.drain(..lines.len() - TAIL_LINES);
    }
    PreviousLog::Lines { lines, cut }
}

/// What a failed read means for a person.
fn failure(err: kube::Error) -> PreviousLog {
    match err {
        kube::Error::Api(status) => {
            let message = super::live::status_message(&status);
            match status.code {
                403 => PreviousLog::Forbidden,
                404 => PreviousLog::Gone(message),
                // The kubelet's answer when there is no previous container
                // (any more): `previous terminated container "server" in
                // pod "..." not found`.
                400 if message.contains("not found") => PreviousLog::Gone(message),
                code => PreviousLog::Failed(format!("{message} (HTTP {code})")),
            }
        }
        other => PreviousLog::Failed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(
            kube::core::Status::failure(message, "")
                .with_code(code)
                .boxed(),
        )
    }

    #[test]
    fn failures_say_what_they_mean() {
        let no_previous = "previous terminated container \"server\" in pod \"p\" not found";
        let cases: &[(&str, u16, &str, PreviousLog)] = &[
            (
                "forbidden",
                403,
                "pods \"p\" is forbidden",
                PreviousLog::Forbidden,
            ),
            (
                "pod gone",
                404,
                "pods \"p\" not found",
                PreviousLog::Gone("pods \"p\" not found".into()),
            ),
            (
                "no previous container",
                400,
                no_previous,
                PreviousLog::Gone(no_previous.into()),
            ),
            (
                "other bad request",
                400,
                "container x is not valid",
                PreviousLog::Failed("container x is not valid (HTTP 400)".into()),
            ),
            (
                "server error",
                500,
                "boom",
                PreviousLog::Failed("boom (HTTP 500)".into()),
            ),
        ];
        for (case, code, message, want) in cases {
            assert_eq!(&failure(status(*code, message)), want, "{case}");
        }
    }

    #[test]
    fn lines_are_the_last_twenty_and_a_full_answer_is_cut() {
        let many: String = (1..=25).map(|i| format!("line {i}\n")).collect();
        // (case, answer, lines, the first line, cut)
        type Case<'a> = (&'a str, Vec<u8>, usize, Option<&'a str>, bool);
        let cases: &[Case] = &[
            ("empty", Vec::new(), 0, None, false),
            (
                "one, no newline",
                b"fatal".to_vec(),
                1,
                Some("fatal"),
                false,
            ),
            ("crlf", b"a\r\nb\r\n".to_vec(), 2, Some("a"), false),
            ("25 lines", many.into_bytes(), 20, Some("line 6"), false),
            (
                "limit reached, split character",
                {
                    let mut b = vec![b'x'; LIMIT_BYTES - 1];
                    b.push(0xc3);
                    b
                },
                1,
                None,
                true,
            ),
        ];
        for (case, body, n, first, cut) in cases {
            match lines_of(body) {
                PreviousLog::Lines { lines, cut: c } => {
                    assert_eq!(lines.len(), *n, "{case}");
                    if let Some(first) = first {
                        assert_eq!(lines[0], *first, "{case}");
                    }
                    assert_eq!(c, *cut, "{case}");
                }
                other => panic!("{case}: {other:?}"),
            }
        }
    }
}
