package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// aws:eks/nodeGroup:NodeGroup — an EKS managed node group, in moto's EKS (CreateNodegroup,
// DescribeNodegroup, UpdateNodegroupConfig, DeleteNodegroup). Not used by the component:
// examples/java declares the node group that runs the Karpenter controller.
//
// It launches no instance and no kubelet: moto's EKS keeps the node group as a record, and the
// world's system nodes (the lab's API server's nodes) stand for its nodes, as they do for
// pulumi-eks's default node group. The engine's output says so.
//
// Inputs as pulumi-aws 6.83.2 names them; the schema, ForceNew flags and defaults are
// terraform-provider-aws's internal/service/eks/node_group.go (the stored copy at commit
// 012e0a32): ami_type, capacity_type, cluster_name, disk_size, instance_types, node_group_name,
// node_group_name_prefix, node_role_arn, remote_access and subnet_ids are ForceNew; labels,
// scaling_config, taint, update_config, node_repair_config and tags update in place
// (UpdateNodegroupConfig, TagResource), and launch_template, release_version and version through
// UpdateNodegroupVersion, which moto 5.2.5 lacks: the stand-in refuses those updates, naming them.
// launch_template, remote_access, update_config and node_repair_config are not implemented (Check
// names them). Without node_group_name or node_group_name_prefix terraform names the group
// create.Name's way: id.UniqueId(), "terraform-" and a timestamp with a counter.
func init() {
	types["aws:eks/nodeGroup:NodeGroup"] = &rtype{
		token: "aws:eks/nodeGroup:NodeGroup",
		inputs: map[string]prop{
			"amiType":             {kind: kString, forceNew: true, computed: true},
			"capacityType":        {kind: kString, forceNew: true, computed: true},
			"clusterName":         {kind: kString, required: true, forceNew: true},
			"diskSize":            {kind: kInt, forceNew: true, computed: true},
			"forceUpdateVersion":  {kind: kBool},
			"instanceTypes":       {kind: kStringList, forceNew: true, computed: true},
			"labels":              {kind: kStringMap},
			"launchTemplate":      {unsupported: true},
			"nodeGroupName":       {kind: kString, forceNew: true, computed: true},
			"nodeGroupNamePrefix": {kind: kString, forceNew: true, computed: true},
			"nodeRepairConfig":    {unsupported: true},
			"nodeRoleArn":         {kind: kString, required: true, forceNew: true},
			"releaseVersion":      {kind: kString, computed: true},
			"remoteAccess":        {unsupported: true},
			"scalingConfig": {kind: kObject, required: true, fields: map[string]field{
				"desiredSize": {kind: kInt, required: true},
				"maxSize":     {kind: kInt, required: true},
				"minSize":     {kind: kInt, required: true},
			}},
			"subnetIds":    {kind: kStringList, required: true, forceNew: true, set: true},
			"tags":         tagsProp,
			"taints":       {kind: kObjectList},
			"updateConfig": {unsupported: true},
			"version":      {kind: kString, computed: true},
		},
		outputs:     []string{"arn", "resources", "status"},
		tags:        true,
		forPrograms: true,
		ops:         nodeGroupOps,
	}
}

// nodeGroupDiskSize is EKS's default disk size of a node group without a launch template (GiB).
const nodeGroupDiskSize = 20

var nodeGroupOps = ops{
	create: createNodeGroup,
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		cluster, name, ok := strings.Cut(id, ":")
		if !ok {
			return nil, fmt.Errorf("invalid EKS Node Group id %q, want <cluster-name>:<node-group-name>", id)
		}
		out, err := c.aws().eks.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading EKS Node Group (%s): %w", id, err)
		}
		return nodeGroupOutputs(out.Nodegroup), nil
	},
	update: updateNodeGroup,
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		cluster, name, _ := strings.Cut(id, ":")
		_, err := c.aws().eks.DeleteNodegroup(ctx, &eks.DeleteNodegroupInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)})
		if err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting EKS Node Group (%s): %w", id, err)
		}
		return nil
	},
}

func createNodeGroup(ctx context.Context, c *call, in pmap) (string, error) {
	cluster := str(in, "clusterName")
	name := str(in, "nodeGroupName")
	if name == "" {
		// terraform's create.Name: the prefix (or "terraform-") and id.UniqueId's timestamp and counter.
		name = strOr(in, "nodeGroupNamePrefix", "terraform-") + time.Now().UTC().Format("20060102150405") + randomDigits(4) + strings.ToLower(upperHex(8))
	}
	id := cluster + ":" + name
	if err := clusterGate(ctx, c, cluster, "EKS Node Group", "CreateNodegroup", id, false); err != nil {
		return "", err
	}
	roleArn := str(in, "nodeRoleArn")
	if ok, err := roleExists(ctx, c, roleArn); err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("creating EKS Node Group (%s): %s", id, apiError("EKS", "CreateNodegroup", 400, "InvalidParameterException",
			fmt.Sprintf("nodeRole, %s, does not exist", roleArn)))
	}
	// A node group's Kubernetes version is its cluster's unless given (moto's default, 1.19, is not).
	version := str(in, "version")
	if version == "" {
		if rec, err := c.p.recordedCluster(cluster); err != nil {
			return "", err
		} else if rec != nil {
			version = rec.Version
		}
	}
	sc := objectOf(in["scalingConfig"])
	input := &eks.CreateNodegroupInput{
		ClusterName:   aws.String(cluster),
		NodegroupName: aws.String(name),
		NodeRole:      aws.String(roleArn),
		Subnets:       stringList(in, "subnetIds"),
		ScalingConfig: scalingConfigOf(sc),
		DiskSize:      aws.Int32(int32(intOr(in, "diskSize", nodeGroupDiskSize))),
		InstanceTypes: stringList(in, "instanceTypes"),
		Labels:        stringMap(in, "labels"),
		Taints:        taintsOf(objectList(in, "taints")),
		Tags:          stringMap(in, "tags"),
	}
	if v := str(in, "amiType"); v != "" {
		input.AmiType = ekstypes.AMITypes(v)
	}
	if v := str(in, "capacityType"); v != "" {
		input.CapacityType = ekstypes.CapacityTypes(v)
	}
	if version != "" {
		input.Version = aws.String(version)
	}
	if v := str(in, "releaseVersion"); v != "" {
		input.ReleaseVersion = aws.String(v)
	}
	if _, err := c.aws().eks.CreateNodegroup(ctx, input); err != nil {
		return "", fmt.Errorf("creating EKS Node Group (%s): %w", id, err)
	}
	c.note(ctx, fmt.Sprintf("created %s %s in moto's EKS: no instance and no kubelet are launched; the world's system nodes stand for its nodes (%s)",
		c.typ.token, c.urn.Name(), standIn))
	return id, nil
}

// updateNodeGroup: labels, taints and scaling through UpdateNodegroupConfig, tags through
// TagResource/UntagResource; a version update (UpdateNodegroupVersion) is refused: moto lacks it.
func updateNodeGroup(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
	cluster, name, _ := strings.Cut(id, ":")
	for _, k := range []string{"version", "releaseVersion"} {
		if has(newIn, k) && str(newIn, k) != str(state, k) {
			return fmt.Errorf("updating EKS Node Group (%s) %s to %q: UpdateNodegroupVersion is not implemented by moto 5.2.5, so the %s refuses it",
				id, k, str(newIn, k), standIn)
		}
	}
	input := &eks.UpdateNodegroupConfigInput{ClusterName: aws.String(cluster), NodegroupName: aws.String(name)}
	changed := false
	if !newIn["scalingConfig"].DeepEquals(oldIn["scalingConfig"]) {
		input.ScalingConfig, changed = scalingConfigOf(objectOf(newIn["scalingConfig"])), true
	}
	if remove, set := tagDiff(stringMap(oldIn, "labels"), stringMap(newIn, "labels")); len(remove)+len(set) > 0 {
		input.Labels, changed = &ekstypes.UpdateLabelsPayload{AddOrUpdateLabels: set, RemoveLabels: remove}, true
	}
	if !newIn["taints"].DeepEquals(oldIn["taints"]) {
		newTaints := taintsOf(objectList(newIn, "taints"))
		keep := map[string]bool{}
		for _, t := range newTaints {
			keep[aws.ToString(t.Key)+"="+aws.ToString(t.Value)+":"+string(t.Effect)] = true
		}
		var gone []ekstypes.Taint
		for _, t := range taintsOf(objectList(oldIn, "taints")) {
			if !keep[aws.ToString(t.Key)+"="+aws.ToString(t.Value)+":"+string(t.Effect)] {
				gone = append(gone, t)
			}
		}
		input.Taints, changed = &ekstypes.UpdateTaintsPayload{AddOrUpdateTaints: newTaints, RemoveTaints: gone}, true
	}
	if changed {
		if _, err := c.aws().eks.UpdateNodegroupConfig(ctx, input); err != nil {
			return fmt.Errorf("updating EKS Node Group (%s) config: %w", id, err)
		}
	}
	if remove, set := tagDiff(stringMap(oldIn, "tags"), stringMap(newIn, "tags")); len(remove)+len(set) > 0 {
		arn := str(state, "arn")
		if len(remove) > 0 {
			if _, err := c.aws().eks.UntagResource(ctx, &eks.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: remove}); err != nil {
				return fmt.Errorf("updating EKS Node Group (%s) tags: %w", id, err)
			}
		}
		if len(set) > 0 {
			if _, err := c.aws().eks.TagResource(ctx, &eks.TagResourceInput{ResourceArn: aws.String(arn), Tags: set}); err != nil {
				return fmt.Errorf("updating EKS Node Group (%s) tags: %w", id, err)
			}
		}
	}
	return nil
}

func scalingConfigOf(sc pmap) *ekstypes.NodegroupScalingConfig {
	return &ekstypes.NodegroupScalingConfig{
		DesiredSize: aws.Int32(int32(intOr(sc, "desiredSize", 0))),
		MaxSize:     aws.Int32(int32(intOr(sc, "maxSize", 0))),
		MinSize:     aws.Int32(int32(intOr(sc, "minSize", 0))),
	}
}

func taintsOf(items []pmap) []ekstypes.Taint {
	var out []ekstypes.Taint
	for _, t := range items {
		taint := ekstypes.Taint{Key: aws.String(str(t, "key")), Effect: ekstypes.TaintEffect(str(t, "effect"))}
		if has(t, "value") {
			taint.Value = aws.String(str(t, "value"))
		}
		out = append(out, taint)
	}
	return out
}

// nodeGroupOutputs are terraform's resourceNodeGroupRead of what moto's EKS holds.
func nodeGroupOutputs(g *ekstypes.Nodegroup) pmap {
	taints := []resource.PropertyValue{}
	for _, t := range g.Taints {
		o := pmap{"key": sv(aws.ToString(t.Key)), "effect": sv(string(t.Effect))}
		if t.Value != nil {
			o["value"] = sv(aws.ToString(t.Value))
		}
		taints = append(taints, resource.NewObjectProperty(o))
	}
	scaling := pmap{}
	if s := g.ScalingConfig; s != nil {
		scaling = pmap{"desiredSize": nv(int(aws.ToInt32(s.DesiredSize))), "maxSize": nv(int(aws.ToInt32(s.MaxSize))), "minSize": nv(int(aws.ToInt32(s.MinSize)))}
	}
	name := aws.ToString(g.NodegroupName)
	out := pmap{
		"amiType": sv(string(g.AmiType)), "arn": sv(aws.ToString(g.NodegroupArn)), "capacityType": sv(string(g.CapacityType)),
		"clusterName": sv(aws.ToString(g.ClusterName)), "diskSize": nv(int(aws.ToInt32(g.DiskSize))),
		"instanceTypes": listValue(g.InstanceTypes), "labels": mapValue(g.Labels), "nodeGroupName": sv(name),
		"nodeRoleArn": sv(aws.ToString(g.NodeRole)), "releaseVersion": sv(aws.ToString(g.ReleaseVersion)),
		"resources": resource.NewArrayProperty([]resource.PropertyValue{}), "scalingConfig": resource.NewObjectProperty(scaling),
		"status": sv(string(g.Status)), "subnetIds": listValue(g.Subnets), "tags": mapValue(g.Tags), "tagsAll": mapValue(g.Tags),
		"taints": resource.NewArrayProperty(taints), "version": sv(aws.ToString(g.Version)),
	}
	return out
}
