package provider

import (
	"fmt"
	"strings"

	"github.com/blang/semver"
)

// defaultVersion is the newest Karpenter release whose official artifacts (CloudFormation
// template, charts, CRDs) the project verifies.
const defaultVersion = "1.14.1"

// release is one row of the version catalog: everything that differs between Karpenter
// versions is a field here, so supporting a new version means adding a row, not new branches.
type release struct {
	// from is inclusive, until exclusive.
	from, until semver.Version

	// api is the custom resource generation the version serves.
	api apiGeneration

	// Controller IAM. splitPolicy: one managed policy per concern (v1.9+) instead of one policy.
	splitPolicy bool
	// Permissions that appeared over time (see the facts sheet §4.8).
	capacityReservations bool // capacity-reservation ARNs + ec2:DescribeCapacityReservations (v1.3)
	listInstanceProfiles bool // iam:ListInstanceProfiles (v1.7)
	placementGroups      bool // placement-group ARNs + ec2:DescribePlacementGroups (v1.11)
	instanceStatus       bool // ec2:DescribeInstanceStatus (v1.12)
	zonalShift           bool // arc-zonal-shift:GetManagedResource policy (v1.12)

	// Node IAM: AmazonEC2ContainerRegistryPullOnly replaced ReadOnly in v1.4.
	ecrPolicy string

	// Interruption: the capacity-reservation interruption rule (v1.10).
	capacityReservationRule bool

	// Validation data for the custom resources.
	consolidationPolicies []string
	amiAliasFamilies      []string
}

// apiGeneration names the custom resource API a version serves.
type apiGeneration struct {
	nodePool, nodeClass apiKind
}

type apiKind struct {
	apiVersion, kind string
}

var v1API = apiGeneration{
	nodePool:  apiKind{"karpenter.sh/v1", "NodePool"},
	nodeClass: apiKind{"karpenter.k8s.aws/v1", "EC2NodeClass"},
}

// catalog lists the supported Karpenter versions, oldest first. Row contents follow the
// official getting-started CloudFormation template of that generation.
var catalog = []release{
	{
		// v1.12 - v1.14: the split controller policy of cfn-v1.14 (six managed policies).
		from: semver.MustParse("1.12.0"), until: semver.MustParse("1.15.0"),
		api:                     v1API,
		splitPolicy:             true,
		capacityReservations:    true,
		listInstanceProfiles:    true,
		placementGroups:         true,
		instanceStatus:          true,
		zonalShift:              true,
		ecrPolicy:               "AmazonEC2ContainerRegistryPullOnly",
		capacityReservationRule: true,
		consolidationPolicies:   []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"},
		amiAliasFamilies:        []string{"al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025"},
	},
}

// lookupRelease resolves a user-supplied version (with or without a leading "v").
func lookupRelease(version string) (semver.Version, release, error) {
	v, err := semver.Parse(strings.TrimPrefix(version, "v"))
	if err != nil {
		return semver.Version{}, release{}, fmt.Errorf("version: %q is not a semantic version (e.g. %s); supported: %s",
			version, defaultVersion, supportedRangeText())
	}
	for _, r := range catalog {
		if v.GTE(r.from) && v.LT(r.until) {
			return v, r, nil
		}
	}
	return semver.Version{}, release{}, fmt.Errorf("version: Karpenter %s is not supported; supported: %s", version, supportedRangeText())
}

// supportedRangeText describes the catalog for error messages and docs.
func supportedRangeText() string {
	parts := make([]string, 0, len(catalog))
	for _, r := range catalog {
		parts = append(parts, fmt.Sprintf(">=%s <%s", r.from, r.until))
	}
	return strings.Join(parts, ", ")
}
