package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The recorder's fix-ups of moto 5.2.5, each for a gap that makes Karpenter act as it never would
// against AWS (found by running the controller against moto; moto's sources cited):
//
//   - ListInstanceProfiles ignores PathPrefix (moto/iam/models.py list_instance_profiles returns
//     every profile). Karpenter's instance-profile garbage collector lists the profiles under
//     /karpenter/<region>/<cluster>/ and deletes those no node class uses: against moto it would
//     delete every instance profile of the account, the component's own included. The response is
//     filtered by the prefix, as IAM does.
//   - CreateFleet launches the instances without the launch template's security groups and
//     instance profile (moto/ec2/models/fleets.py merges only part of the template). Karpenter
//     would find every node drifted (SecurityGroupDrift) the moment it launched and replace it,
//     forever. Before the response reaches Karpenter, the new instances get their template's
//     security groups and instance profile (ModifyInstanceAttribute, AssociateIamInstanceProfile),
//     as EC2 launches them.
//   - DescribeCluster answers the version the cluster was created with (moto/eks/models.py has no
//     UpdateClusterVersion): the aws stand-in keeps a cluster's version updates in its record, and
//     the answer's version is the record's, as EKS's would be after the update.

// motoClient reaches moto directly (not through the recorder): for fix-ups and preflight reads.
type motoClient struct {
	cfg aws.Config
	ec2 *ec2.Client
}

func newMotoClient(cfg aws.Config) *motoClient {
	return &motoClient{cfg: cfg, ec2: ec2.NewFromConfig(cfg)}
}

func (r *AWSRecorder) fixUp(resp *http.Response, c *AWSCall) error {
	var fix func([]byte, *AWSCall) ([]byte, string, error)
	switch {
	case c.Service == "iam" && c.Action == "ListInstanceProfiles" && c.Params.Get("PathPrefix") != "":
		fix = filterInstanceProfiles
	case c.Service == "ec2" && c.Action == "CreateFleet" && !c.DryRun:
		fix = r.applyLaunchTemplates
	case c.Service == "eks" && c.Action == "DescribeCluster":
		fix = r.clusterVersionOfRecord
	default:
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body.Close()
	fixed, what, err := fix(body, c)
	if err != nil {
		what = fmt.Sprintf("%s %s: fix-up failed: %v", c.Service, c.Action, err)
		fixed = body
	}
	if what != "" {
		r.mu.Lock()
		r.fixups = append(r.fixups, what)
		r.mu.Unlock()
	}
	resp.Body = io.NopCloser(bytes.NewReader(fixed))
	resp.ContentLength = int64(len(fixed))
	resp.Header.Set("Content-Length", strconv.Itoa(len(fixed)))
	return nil
}

// xmlNode is any XML element, kept whole.
type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []xmlNode  `xml:",any"`
}

func (n *xmlNode) child(name string) *xmlNode {
	for i := range n.Nodes {
		if n.Nodes[i].XMLName.Local == name {
			return &n.Nodes[i]
		}
	}
	return nil
}

// filterInstanceProfiles drops the profiles whose Path does not start with the request's PathPrefix.
func filterInstanceProfiles(body []byte, c *AWSCall) ([]byte, string, error) {
	var doc xmlNode
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, "", err
	}
	prefix := c.Params.Get("PathPrefix")
	list := doc.child("ListInstanceProfilesResult")
	if list != nil {
		list = list.child("InstanceProfiles")
	}
	if list == nil {
		return nil, "", fmt.Errorf("no ListInstanceProfilesResult.InstanceProfiles")
	}
	var dropped []string
	list.Nodes = slices.DeleteFunc(list.Nodes, func(p xmlNode) bool {
		path, name := p.child("Path"), p.child("InstanceProfileName")
		if path == nil || strings.HasPrefix(path.Text, prefix) {
			return false
		}
		if name != nil {
			dropped = append(dropped, name.Text)
		}
		return true
	})
	if len(dropped) == 0 {
		return body, "", nil
	}
	out, err := xml.Marshal(doc)
	return out, fmt.Sprintf("iam ListInstanceProfiles PathPrefix=%s: left out %s (outside the prefix)", prefix, strings.Join(dropped, ", ")), err
}

var instanceIDPattern = regexp.MustCompile(`\bi-[0-9a-f]{8,17}\b`)

// applyLaunchTemplates gives the instances a CreateFleet launched their launch template's
// security groups and instance profile.
func (r *AWSRecorder) applyLaunchTemplates(body []byte, c *AWSCall) ([]byte, string, error) {
	ids := slices.Compact(slices.Sorted(slices.Values(instanceIDPattern.FindAllString(string(body), -1))))
	c.Launched = ids
	if len(ids) == 0 {
		return body, "", nil
	}
	ctx := context.Background()
	var groups []string
	var profile string
	for i := 1; ; i++ {
		prefix := fmt.Sprintf("LaunchTemplateConfigs.%d.LaunchTemplateSpecification.", i)
		name, id := c.Params.Get(prefix+"LaunchTemplateName"), c.Params.Get(prefix+"LaunchTemplateId")
		if name == "" && id == "" {
			break
		}
		in := &ec2.DescribeLaunchTemplateVersionsInput{Versions: []string{"$Latest"}}
		if id != "" {
			in.LaunchTemplateId = aws.String(id)
		} else {
			in.LaunchTemplateName = aws.String(name)
		}
		if v := c.Params.Get(prefix + "Version"); v != "" {
			in.Versions = []string{v}
		}
		out, err := r.moto.ec2.DescribeLaunchTemplateVersions(ctx, in)
		if err != nil || len(out.LaunchTemplateVersions) == 0 {
			return nil, "", fmt.Errorf("launch template %s%s: %v", name, id, err)
		}
		d := out.LaunchTemplateVersions[0].LaunchTemplateData
		g := slices.Clone(d.SecurityGroupIds)
		for _, ni := range d.NetworkInterfaces {
			g = append(g, ni.Groups...)
		}
		slices.Sort(g)
		p := ""
		if d.IamInstanceProfile != nil {
			p = aws.ToString(d.IamInstanceProfile.Name)
		}
		if i > 1 && (!slices.Equal(g, groups) || p != profile) {
			return nil, "", fmt.Errorf("the fleet's launch templates differ in security groups or instance profile")
		}
		groups, profile = g, p
	}
	for _, id := range ids {
		if len(groups) > 0 {
			if _, err := r.moto.ec2.ModifyInstanceAttribute(ctx, &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id), Groups: groups}); err != nil {
				return nil, "", fmt.Errorf("ModifyInstanceAttribute %s: %w", id, err)
			}
		}
		if profile != "" {
			if _, err := r.moto.ec2.AssociateIamInstanceProfile(ctx, &ec2.AssociateIamInstanceProfileInput{InstanceId: aws.String(id),
				IamInstanceProfile: &ec2types.IamInstanceProfileSpecification{Name: aws.String(profile)}}); err != nil {
				return nil, "", fmt.Errorf("AssociateIamInstanceProfile %s: %w", id, err)
			}
		}
	}
	return body, fmt.Sprintf("ec2 CreateFleet: gave %s the launch template's security groups %v and instance profile %s",
		strings.Join(ids, ", "), groups, profile), nil
}

// clusterVersionOfRecord puts the stand-in record's version of the cluster into a DescribeCluster
// answer, when the record has the cluster and the answer says another version.
func (r *AWSRecorder) clusterVersionOfRecord(body []byte, c *AWSCall) ([]byte, string, error) {
	record, err := readStandInEKS(r.eksRecord)
	if err != nil {
		return nil, "", err
	}
	var answer map[string]any
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, "", err
	}
	cluster, _ := answer["cluster"].(map[string]any)
	name, _ := cluster["name"].(string)
	want := record.Clusters[name].Version
	if cluster == nil || want == "" || cluster["version"] == want {
		return body, "", nil
	}
	what := fmt.Sprintf("eks DescribeCluster %s: version %v → %s (the stand-in's record: moto has no UpdateClusterVersion)", name, cluster["version"], want)
	cluster["version"] = want
	fixed, err := json.Marshal(answer)
	return fixed, what, err
}
