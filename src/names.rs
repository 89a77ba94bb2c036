//! "Did you mean": the names that exist nearest to one a person typed. A
//! neutral module below every layer: the planner (a node that does not
//! exist in its namespace) and the commands (a cluster, or a node, found
//! in no namespace in view) both suggest with it.

/// Up to three names within a small edit distance of `name`, nearest first.
pub fn nearest(name: &str, candidates: &[&str]) -> Vec<String> {
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
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
