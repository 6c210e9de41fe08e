package plan

import (
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
)

// OwnedChartValues are the chart values the component sets from its inputs, which `values` may
// not set as well: merged over the component's, they would silently win, and the controller would
// manage another cluster, read another queue, or run as another identity than the IAM the
// component made for it. (With interruption handling off, the queue setting is the user's.)
func (p *Plan) OwnedChartValues() []catalog.OwnedValue {
	keys := p.Release.Values
	owned := []catalog.OwnedValue{
		catalog.Owned(keys.ClusterName, "clusterName"),
		catalog.Owned(keys.ClusterEndpoint, "clusterEndpoint"),
		catalog.Owned(catalog.ServiceAccountNameValue, "serviceAccountName"),
	}
	if p.Interruption {
		owned = append(owned, catalog.Owned(keys.InterruptionQueue, "interruptionHandling"))
	}
	if keys.DefaultInstanceProfile != "" && p.CreateInstanceProfile {
		owned = append(owned, catalog.Owned(keys.DefaultInstanceProfile, "createInstanceProfile"))
	}
	if p.AnnotatesRoleArn() {
		path := append(strings.Split(catalog.ServiceAccountAnnotation, "."), catalog.RoleArnAnnotation)
		owned = append(owned, catalog.OwnedValue{Path: path, Input: "controllerRoleArn"})
	}
	if p.ControllerImageRepository != "" {
		owned = append(owned, catalog.Owned(catalog.ImageRepositoryValue, "controllerImageRepository"))
	}
	return owned
}

// AnnotatesRoleArn says whether the service account carries the controller role's ARN: with
// IRSA the pod identity webhook injects the role from it; with Pod Identity alone the association
// does, and the annotation would take precedence.
func (p *Plan) AnnotatesRoleArn() bool {
	return p.TrustIRSA || !p.PodIdentity
}
