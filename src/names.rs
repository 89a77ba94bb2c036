//! "Did you mean": the names that exist nearest to one a person typed. A
//! neutral module below every layer: the planner (a node that does not
//! exist in its namespace) and the commands (a cluster, or a node, found
//! in no namespace in view) both suggest with it.

/// The longest name the API server accepts (a DNS-1123 subdomain): no
/// node, cluster or namespace is longer, so a longer one is not a name.
pub(crate) const LONGEST_NAME: usize = 253;

/// Up to three names within a small edit distance of `name`, nearest first.
///
/// The edit distance costs the product of the two lengths: a 100 KB name
/// against a 4 MB one from a hand-made file ran for minutes. No Kubernetes
/// name is longer than [`LONGEST_NAME`]
/// characters, so a longer name gets no suggestion and a longer candidate
/// is none; the rest are compared only when their lengths differ by no
/// more than the distance allowed.
pub(crate) fn nearest(name: &str, candidates: &[&str]) -> Vec<String> {
    const LONGEST: usize = LONGEST_NAME;
    let len = name.chars().count();
    if len > LONGEST {
        return Vec::new();
    }
    let limit = (len / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .filter(|c| {
            c.len() <= 4 * LONGEST && {
                let n = c.chars().count();
                n <= LONGEST && n.abs_diff(len) <= limit
            }
        })
        .map(|c| (strsim::levenshtein(name, c), *c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn nearest_names_and_no_cost_for_names_no_cluster_can_hold() {
        let long = format!("cache-0-1{}", "x".repeat(200_000));
        let typed = format!("cache-0-1{}", "y".repeat(2_000));
        let at_most = format!("cache-0-1{}", "x".repeat(244));
        let one_more = format!("{at_most}x");
        // (case, name, candidates, nearest)
        let cases: &[(&str, &str, &[&str], &[&str])] = &[
            (
                "a typo",
                "cache-0-2",
                &["cache-0-1", "web-0-0"],
                &["cache-0-1"],
            ),
            ("nothing near", "zzz", &["cache-0-1"], &[]),
            (
                "a candidate of the longest length",
                &at_most[..at_most.len() - 1],
                &[&at_most],
                &[&at_most],
            ),
            (
                "a candidate too long to be a name",
                &at_most,
                &[&one_more],
                &[],
            ),
            (
                "a typed name too long to be one",
                &one_more,
                &[&at_most],
                &[],
            ),
            ("a long name against a longer one", &typed, &[&long], &[]),
        ];
        for (case, name, candidates, want) in cases {
            let start = std::time::Instant::now();
            let got = nearest(name, candidates);
            assert_eq!(got, *want, "{case}");
            // Before the bound, the last case took about a minute; the bound
            // is generous, so a loaded machine does not fail it.
            assert!(
                start.elapsed().as_secs_f64() < 20.0,
                "{case}: {:?}",
                start.elapsed()
            );
        }
    }
}
