//! The fields of a ValkeyNode's spec the cluster controller mirrors from
//! its ValkeyCluster: the facts a node *behind* is behind on. The rule
//! that compares them is `ValkeyCluster::spec_differs`
//! (src/snapshot/mirror.rs), which lists them in [`SpecField::ALL`]'s order.

/// A field of a ValkeyNode's spec that the cluster controller fills from
/// its ValkeyCluster, in the order the operator builds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpecField {
    Image,
    ImagePullSecrets,
    WorkloadType,
    Persistence,
    Resources,
    NodeSelector,
    Affinity,
    Tolerations,
    PriorityClassName,
    TopologySpreadConstraints,
    Exporter,
    Containers,
    Tls,
    /// `spec.config`, with a key the operator cannot apply live: the pod
    /// is replaced.
    Config,
    /// `spec.config`, where only keys the operator applies live
    /// (`crate::snapshot::LIVE_CONFIG_KEYS`) differ: the node's spec is updated in the
    /// walk's order, its pod is not replaced.
    LiveConfig,
    PodSecurityContext,
    TerminationGracePeriodSeconds,
}

impl SpecField {
    /// Every mirrored field, in the order the operator builds them.
    pub const ALL: [SpecField; 17] = [
        SpecField::Image,
        SpecField::ImagePullSecrets,
        SpecField::WorkloadType,
        SpecField::Persistence,
        SpecField::Resources,
        SpecField::NodeSelector,
        SpecField::Affinity,
        SpecField::Tolerations,
        SpecField::PriorityClassName,
        SpecField::TopologySpreadConstraints,
        SpecField::Exporter,
        SpecField::Containers,
        SpecField::Tls,
        SpecField::Config,
        SpecField::LiveConfig,
        SpecField::PodSecurityContext,
        SpecField::TerminationGracePeriodSeconds,
    ];

    /// Its name in the ValkeyNode's spec, as the API spells it (a fact,
    /// not words: the JSON output and the REASON use it as is).
    pub fn key(self) -> &'static str {
        match self {
            SpecField::Image => "image",
            SpecField::ImagePullSecrets => "imagePullSecrets",
            SpecField::WorkloadType => "workloadType",
            SpecField::Persistence => "persistence",
            SpecField::Resources => "resources",
            SpecField::NodeSelector => "nodeSelector",
            SpecField::Affinity => "affinity",
            SpecField::Tolerations => "tolerations",
            SpecField::PriorityClassName => "priorityClassName",
            SpecField::TopologySpreadConstraints => "topologySpreadConstraints",
            SpecField::Exporter => "exporter",
            SpecField::Containers => "containers",
            SpecField::Tls => "tls",
            SpecField::Config | SpecField::LiveConfig => "config",
            SpecField::PodSecurityContext => "podSecurityContext",
            SpecField::TerminationGracePeriodSeconds => "terminationGracePeriodSeconds",
        }
    }

    /// The operator applies the change to the running server, without
    /// replacing the pod (its spec is still updated in the walk's order).
    pub fn live(self) -> bool {
        match self {
            SpecField::LiveConfig => true,
            SpecField::Image
            | SpecField::ImagePullSecrets
            | SpecField::WorkloadType
            | SpecField::Persistence
            | SpecField::Resources
            | SpecField::NodeSelector
            | SpecField::Affinity
            | SpecField::Tolerations
            | SpecField::PriorityClassName
            | SpecField::TopologySpreadConstraints
            | SpecField::Exporter
            | SpecField::Containers
            | SpecField::Tls
            | SpecField::Config
            | SpecField::PodSecurityContext
            | SpecField::TerminationGracePeriodSeconds => false,
        }
    }
}
