package children

// How the component plugs into the cluster and the account: the nodes' access to the API
// server, the controller's Pod Identity association, the discovery tags and the Spot
// service-linked role.

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/catalog"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/inputs"
	"github.com/pulumi-karpenter/pulumi-karpenter/provider/plan"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"gopkg.in/yaml.v3"
)

// createAutoModeNodeAccess gives the node role, and the own role of every node class that has
// one, an EC2 access entry with AmazonEKSAutoNodePolicy associated cluster-wide — the entry EKS
// creates itself only for the cluster's own node role, and the one users forget for a custom
// class role (its nodes launch and never join).
func (b *builder) createAutoModeNodeAccess(roleArn pulumi.StringOutput) ([]pulumi.Resource, error) {
	var access []pulumi.Resource
	if !b.plan.NodeRoleHasOthersEntry() {
		var err error
		if access, err = b.createAutoModeAccessEntry("-node-access", roleArn, b.nodeEntryTags()); err != nil {
			return nil, err
		}
	}
	for i, c := range b.plan.Classes {
		if b.plan.ClassRoleHasOthersEntry(i) {
			continue
		}
		if arn, ok := b.classRoleArn(c); ok {
			more, err := b.createAutoModeAccessEntry("-nodeclass-"+c.Name+"-access", arn, b.ownedEntryTags())
			if err != nil {
				return nil, err
			}
			access = append(access, more...)
		}
	}
	return access, nil
}

func (b *builder) createAutoModeAccessEntry(suffix string, principalArn pulumi.StringOutput, tags pulumi.StringMapInput) ([]pulumi.Resource, error) {
	rules := b.plan.Release.AutoMode
	entry, err := b.newChild(eksAccessEntry, suffix, pulumi.Map{
		"clusterName":  b.plan.Deferred.ClusterName,
		"principalArn": principalArn,
		"type":         pulumi.String(b.plan.AccessEntryType()),
		"tags":         tags,
	})
	if err != nil {
		return nil, err
	}
	// The association names the entry's principal through the entry, so it follows it.
	association, err := b.newChild(eksAccessPolicyAssociation, suffix+"-policy", pulumi.Map{
		"clusterName":  b.plan.Deferred.ClusterName,
		"principalArn": entry.PrincipalArn,
		"policyArn":    pulumi.String(fmt.Sprintf("arn:%s:eks::aws:cluster-access-policy/%s", b.aws.Partition, rules.AccessPolicy)),
		"accessScope":  pulumi.Map{"type": pulumi.String("cluster")},
	})
	if err != nil {
		return nil, err
	}
	return []pulumi.Resource{entry, association}, nil
}

// accessPrincipals are the roles that get an access entry (nodeRoleArn, and the classes' own
// roles), by the field that names each, for the check that no two are the same role (EKS allows
// one entry per principal).
func (b *builder) accessPrincipals() (fields []*field.Path, arns []any) {
	if b.plan.NodeAccess != inputs.NodeAccessEntry {
		return nil, nil
	}
	if b.plan.Deferred.NodeRoleArn != nil {
		fields, arns = append(fields, field.NewPath("nodeRoleArn")), append(arns, b.plan.Deferred.NodeRoleArn.ToStringPtrOutput().Elem())
	}
	for i, c := range b.plan.Classes {
		if arn, ok := b.accessRoleArn(c); ok {
			path := field.NewPath("nodeClasses").Index(i).Child("role")
			if c.Role == nil {
				path = field.NewPath("nodeClasses").Index(i).Child("instanceProfile")
			}
			fields, arns = append(fields, path), append(arns, arn)
		}
	}
	return fields, arns
}

// nodeEntryTags are the tags of the node role's access entry. Only the entry of a role of the
// user's (nodeRoleArn) is read before it is made (plan.checkAccessEntries), so only it carries the
// owner tag: the entry of the component's own node role is never read, and an adopted install's
// is imported as it is (an import whose inputs differ from what exists fails).
func (b *builder) nodeEntryTags() pulumi.StringMapInput {
	if b.plan.CreateNodeRole || b.plan.Adopt != nil {
		return b.plan.Deferred.Tags
	}
	return b.ownedEntryTags()
}

// ownedEntryTags are the tags of an access entry the component makes for a role of the user's:
// the component's tags and its owner tag (catalog.AccessEntryOwnerTag), by which a later read
// tells the entry is its own.
func (b *builder) ownedEntryTags() pulumi.StringMapInput {
	if b.plan.Deferred.Tags == nil {
		return pulumi.StringMap{catalog.AccessEntryOwnerTag: pulumi.String(b.plan.Name)}
	}
	return b.plan.Deferred.Tags.ToStringMapOutput().ApplyT(func(tags map[string]string) map[string]string {
		all := map[string]string{catalog.AccessEntryOwnerTag: b.plan.Name}
		maps.Copy(all, tags)
		all[catalog.AccessEntryOwnerTag] = b.plan.Name // the mark wins (a user tag of that key is refused anyway)
		return all
	}).(pulumi.StringMapOutput)
}

const podIdentityAgentAddon = "eks-pod-identity-agent"

// createNodeAccess lets the instances of the node role, and of every node class with a role of its
// own, join the cluster, with an access entry each or aws-auth mappings. Node classes wait for it,
// so nodes never launch before they can join, and it goes only after they are gone.
func (b *builder) createNodeAccess(roleArn pulumi.StringOutput) ([]pulumi.Resource, error) {
	switch b.plan.NodeAccess {
	case inputs.NodeAccessEntry:
		entryType := b.plan.AccessEntryType()
		var access []pulumi.Resource
		if !b.plan.NodeRoleHasOthersEntry() {
			principal, known := b.knownNodeRoleArn()
			entry, err := b.newChild(eksAccessEntry, "-node-access", pulumi.Map{
				"clusterName":  b.plan.Deferred.ClusterName,
				"principalArn": roleArn,
				"type":         pulumi.String(entryType),
				"tags":         b.nodeEntryTags(),
			}, b.adoptingIf(known && b.plan.Adopt != nil && b.plan.Adopt.AccessEntry, accessEntryID(b.adoptedCluster(), principal))...)
			if err != nil {
				return nil, err
			}
			access = append(access, entry)
		}
		for i, c := range b.plan.Classes {
			arn, ok := b.accessRoleArn(c)
			if !ok || b.plan.ClassRoleHasOthersEntry(i) {
				continue
			}
			entry, err := b.newChild(eksAccessEntry, "-nodeclass-"+c.Name+"-access", pulumi.Map{
				"clusterName":  b.plan.Deferred.ClusterName,
				"principalArn": arn,
				"type":         pulumi.String(entryType),
				"tags":         b.ownedEntryTags(),
			})
			if err != nil {
				return nil, err
			}
			access = append(access, entry)
		}
		return access, nil
	case inputs.NodeAccessAwsAuth:
		roles := []pulumi.StringOutput{roleArn}
		for _, c := range b.plan.Classes {
			if arn, ok := b.accessRoleArn(c); ok {
				roles = append(roles, arn)
			}
		}
		return b.createAwsAuthMapping(roles)
	}
	return nil, nil
}

// accessRoleArn is the role of a node class that needs node access of its own: in Auto Mode its
// own role (classRoleArn); self-managed, its `role`, whose instance profile Karpenter makes — a
// class's pre-made instanceProfile is the user's, and usually holds the node role, which has
// access already.
func (b *builder) accessRoleArn(c inputs.NodeClassSpec) (pulumi.StringOutput, bool) {
	if !b.plan.Release.IsAutoMode() && c.Role == nil {
		return pulumi.StringOutput{}, false
	}
	return b.classRoleArn(c)
}

// createAwsAuthMapping merges the node roles into kube-system/aws-auth's mapRoles. mapRoles is
// one string other tools write too, so the component reads it (before any child: the gate refuses
// a mapRoles another owner applies whole, plan.CheckAwsAuthManagers), adds its entry (keeping
// every other entry as it is) and applies the result under its own field manager. The patch is
// kept on destroy: removing it would remove the whole mapRoles field it had to take over, locking
// every other node out.
func (b *builder) createAwsAuthMapping(roles []pulumi.StringOutput) ([]pulumi.Resource, error) {
	groups := b.plan.NodeRoleGroups()
	all := []any{b.awsAuth.Data}
	for _, r := range roles {
		all = append(all, r)
	}
	mapRoles := pulumi.All(all...).ApplyT(func(vals []any) (string, error) {
		mapped := vals[0].(map[string]string)["mapRoles"]
		for _, r := range vals[1:] {
			var err error
			if mapped, err = mergeMapRoles(mapped, catalog.AwsAuthRoleArn(r.(string)), groups); err != nil {
				return "", err
			}
		}
		return mapped, nil
	}).(pulumi.StringOutput)
	patch, err := b.newChild(configMapPatch, "-aws-auth", pulumi.Map{
		"apiVersion": pulumi.String("v1"),
		"kind":       pulumi.String("ConfigMap"),
		"metadata": pulumi.Map{
			"name":      pulumi.String("aws-auth"),
			"namespace": pulumi.String("kube-system"),
			"annotations": pulumi.StringMap{
				"pulumi.com/patchForce":        pulumi.String("true"),
				"pulumi.com/patchFieldManager": pulumi.String(catalog.AwsAuthFieldManager),
			},
		},
		"data": pulumi.StringMap{"mapRoles": mapRoles},
	}, pulumi.RetainOnDelete(true))
	if err != nil {
		return nil, err
	}
	return []pulumi.Resource{patch}, nil
}

// awsAuthManagers are the field managers of aws-auth as read (metadata.managedFields).
func awsAuthManagers(metadata map[string]any) []plan.FieldManager {
	entries, _ := metadata["managedFields"].([]any)
	var out []plan.FieldManager
	for _, e := range entries {
		m, _ := e.(map[string]any)
		manager, _ := m["manager"].(string)
		operation, _ := m["operation"].(string)
		fields, _ := m["fieldsV1"].(map[string]any)
		out = append(out, plan.FieldManager{Manager: manager, Operation: operation, Fields: fields})
	}
	return out
}

// mergeMapRoles adds (or replaces) the node role's entry in an aws-auth mapRoles document and
// keeps the other entries in their order.
func mergeMapRoles(existing, roleArn string, groups []string) (string, error) {
	var entries []map[string]any
	if strings.TrimSpace(existing) != "" {
		if err := yaml.Unmarshal([]byte(existing), &entries); err != nil {
			return "", field.Invalidf(field.NewPath("nodeAccess"), "kube-system/aws-auth mapRoles is not a YAML list: %v", err)
		}
	}
	entries = slices.DeleteFunc(entries, func(e map[string]any) bool { return e["rolearn"] == roleArn })
	groupList := make([]any, len(groups))
	for i, g := range groups {
		groupList[i] = g
	}
	entries = append(entries, map[string]any{
		"rolearn":  roleArn,
		"username": plan.NodeUsername,
		"groups":   groupList,
	})
	out, err := yaml.Marshal(entries)
	return string(out), err
}

// createPodIdentity associates the controller's service account with its role, and installs
// the Pod Identity agent when asked to.
func (b *builder) createPodIdentity(roleArn pulumi.StringOutput) ([]pulumi.Resource, error) {
	if !b.plan.PodIdentity {
		return nil, nil
	}
	var out []pulumi.Resource
	if b.plan.CreatePodIdentityAgent {
		addon, err := b.newChild(eksAddon, "-pod-identity-agent", pulumi.Map{
			"clusterName": b.plan.Deferred.ClusterName,
			"addonName":   pulumi.String(podIdentityAgentAddon),
			"tags":        b.plan.Deferred.Tags,
		}, b.adoptingIf(b.plan.Adopt != nil && b.plan.Adopt.PodIdentityAgent, addonID(b.adoptedCluster(), podIdentityAgentAddon))...)
		if err != nil {
			return nil, err
		}
		out = append(out, addon)
	}
	var associationID string
	if a := b.plan.Adopt; a != nil && a.PodIdentityAssociationID != "" && !a.Taken { // "": the install has none
		associationID = podIdentityID(b.adoptedCluster(), a.PodIdentityAssociationID)
	}
	association, err := b.newChild(eksPodIdentity, "-pod-identity", pulumi.Map{
		"clusterName":    b.plan.Deferred.ClusterName,
		"namespace":      pulumi.String(b.plan.Namespace),
		"serviceAccount": pulumi.String(b.plan.ServiceAccount),
		"roleArn":        roleArn,
		"tags":           b.plan.Deferred.Tags,
	}, b.adopting(associationID)...)
	if err != nil {
		return nil, err
	}
	return append(out, association), nil
}

// checkPodIdentityAgent fails when Pod Identity is asked for on a cluster without the agent:
// the controller would start without credentials.
func (b *builder) checkPodIdentityAgent(cluster string) error {
	if !b.plan.PodIdentity || b.plan.CreatePodIdentityAgent {
		return nil
	}
	var addon struct {
		AddonVersion string `pulumi:"addonVersion"`
	}
	args := struct {
		ClusterName string `pulumi:"clusterName"`
		AddonName   string `pulumi:"addonName"`
	}{cluster, podIdentityAgentAddon}
	if err := b.invoke(invokeAddon, args, &addon); err != nil {
		return field.Invalidf(field.NewPath("controllerIdentity"), "podIdentity needs the %s add-on on cluster %s, which was not found; install it or set createPodIdentityAgent: true",
			podIdentityAgentAddon, cluster)
	}
	return nil
}

// createDiscoveryTags tags the given subnets and security groups for Karpenter's discovery.
func (b *builder) createDiscoveryTags() ([]pulumi.Resource, error) {
	d := b.plan.Deferred.Discovery
	if d == nil {
		return nil, nil
	}
	var out []pulumi.Resource
	tag := func(kind string, i int, id pulumi.StringInput) error {
		t, err := b.newChild(ec2Tag, fmt.Sprintf("-discovery-%s-%d", kind, i), pulumi.Map{
			"resourceId": id,
			"key":        pulumi.String(catalog.DiscoveryTag),
			"value":      b.plan.Deferred.ClusterName,
		})
		out = append(out, t)
		return err
	}
	for i, id := range d.SubnetIds {
		if err := tag("subnet", i, id); err != nil {
			return nil, err
		}
	}
	for i, id := range d.SecurityGroupIds {
		if err := tag("security-group", i, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createSpotServiceLinkedRole creates AWSServiceRoleForEC2Spot, which EC2 requires before an
// account's first Spot launch. It is account-wide and may serve other workloads, so it is
// kept on destroy. An account has one: where it exists already (another stack made it, or EC2
// did), creating it would fail at `up` ("has been taken in this account"), so the role is read
// first and imported (its id is its ARN, which is also the id the stack holds once it has it:
// the import is then no change).
func (b *builder) createSpotServiceLinkedRole() ([]pulumi.Resource, error) {
	if !b.plan.SpotServiceLinkedRole {
		return nil, nil
	}
	exists, err := (&awsReader{ctx: b.ctx, comp: b.parent}).RoleExists(catalog.SpotServiceLinkedRole)
	if err != nil {
		return nil, field.Invalidf(field.NewPath("createSpotServiceLinkedRole"), "could not read whether the account has the %s service-linked role (%v): the component creates it only where it does not exist (the read needs iam:GetRole)", catalog.SpotServiceLinkedRole, err)
	}
	opts := []pulumi.ResourceOption{pulumi.RetainOnDelete(true)}
	if exists {
		opts = append(opts, pulumi.Import(pulumi.ID(b.spotServiceLinkedRoleArn())))
	}
	role, err := b.newChild(iamServiceLinkedRole, "-spot-service-linked-role", pulumi.Map{
		"awsServiceName": pulumi.String("spot.amazonaws.com"),
		"tags":           b.plan.Deferred.Tags,
	}, opts...)
	if err != nil {
		return nil, err
	}
	return []pulumi.Resource{role}, nil
}

// passRoleArns are the roles the controller may pass to EC2: the node role, the roles of node
// classes with their own role, and the roles inside node classes' instance profiles (looked up,
// so a pre-created profile works).
func (b *builder) passRoleArns(nodeRoleArn pulumi.StringInput) pulumi.StringArrayOutput {
	arns := []any{nodeRoleArn}
	for _, c := range b.plan.Classes {
		if arn, ok := b.classRoleArn(c); ok {
			arns = append(arns, arn)
		}
	}
	return pulumi.All(arns...).ApplyT(func(vals []any) []string {
		var out []string
		for _, v := range vals {
			if s, ok := v.(string); ok && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}).(pulumi.StringArrayOutput)
}

// classRoleArn is the ARN of a node class's own role: its role (a name, or an ARN), or the role
// inside its instance profile, looked up. ok is false for a class that uses the node role.
func (b *builder) classRoleArn(c inputs.NodeClassSpec) (arn pulumi.StringOutput, ok bool) {
	switch {
	case c.Role != nil:
		return c.Role.ToStringPtrOutput().Elem().ApplyT(func(role string) string {
			if strings.HasPrefix(role, "arn:") {
				return role
			}
			return b.aws.RoleArn(role)
		}).(pulumi.StringOutput), true
	case c.InstanceProfile != nil:
		return c.InstanceProfile.ToStringPtrOutput().Elem().ApplyT(func(name string) (string, error) {
			var profile struct {
				RoleArn string `pulumi:"roleArn"`
			}
			args := struct {
				Name string `pulumi:"name"`
			}{name}
			if err := b.invoke(InvokeInstanceProfile, args, &profile); err != nil {
				return "", field.Invalidf(field.NewPath("nodeClasses"), "reading instance profile %q: %v", name, err)
			}
			return profile.RoleArn, nil
		}).(pulumi.StringOutput), true
	}
	return pulumi.StringOutput{}, false
}

// RoleMappingOutput is an inputs.RoleMapping not known yet.
type RoleMappingOutput struct{ *pulumi.OutputState }

func (RoleMappingOutput) ElementType() reflect.Type {
	return reflect.TypeOf((*inputs.RoleMapping)(nil)).Elem()
}

func init() { pulumi.RegisterOutputType(RoleMappingOutput{}) }

// nodeRoleMapping is the node role's aws-auth entry (the nodeRoleMapping output): what another
// owner of aws-auth adds when the component does not write aws-auth itself.
func (b *builder) nodeRoleMapping() RoleMappingOutput {
	groups := b.plan.NodeRoleGroups()
	return b.node.roleArn.ApplyT(func(arn string) inputs.RoleMapping {
		return inputs.RoleMapping{RoleArn: catalog.AwsAuthRoleArn(arn), Username: plan.NodeUsername, Groups: groups}
	}).(RoleMappingOutput)
}
