"""moto_server with the EKS optimized-AMI SSM parameters AWS publishes (test only).

Run with the moto venv's python in place of its bin/moto_server, with the same arguments:

    <venv>/bin/python tests/e2e/lab/moto/motoserver.py -H 127.0.0.1 -p <port>

moto 5.2.5 has no EKS optimized-AMI parameters (/aws/service/eks/optimized-ami/..., the
Bottlerocket and Windows ones), which Karpenter resolves its AMI aliases through, and refuses to
hold any name under /aws ("No access to reserved parameter name", moto/ssm/models.py), so they
cannot be put from outside. This launcher adds them to moto's SSM parameter store the way moto
loads its own /aws/service/ami-amazon-linux-latest table: ParameterDict loads a table lazily, the
first time a name under its prefix is asked for (ParameterDict._check_loading_status). The table
is eks-ami-parameters.json, beside this file; its "_comment" says what it stands for. Each
parameter names an image of its own (the table's "images"), which this launcher adds to moto's AMI
table (moto/ec2/models/amis.py, AMIS, which every region's EC2 loads when first used): a copy of an
AMI moto has, under the image's id and name.

One fix-up where moto's IAM differs from AWS's: CreateServiceLinkedRole for spot.amazonaws.com
makes AWSServiceRoleForspot in moto (moto/iam/models.py builds the name from the service
principal), where AWS names it AWSServiceRoleForEC2Spot (EC2 User Guide, "Service-linked role for
Spot Instance requests"), the name Karpenter's guide and the component look for.

One fix-up where moto is not safe for the concurrent requests its threaded server serves: EC2's
tag store (moto/ec2/models/tags.py, TagBackend) is a dict of dicts that DescribeTags -- and every
Describe* answer that lists a resource's tags -- iterates while a CreateTags or DeleteTags on
another request's thread changes it: "RuntimeError: dictionary changed size during iteration", an
HTTP 500 that AWS never answers. The pulumi programs tag subnets and security groups in parallel,
and the Karpenter controller describes them meanwhile. Here the tag store's methods take one lock.
MOTOSERVER_SWITCH_INTERVAL (seconds, Python's thread switch interval; tests only) makes such races
show within seconds instead of one run in many.

One fix-up where moto's SQS differs from AWS's: SetQueueAttributes without a Policy attribute
clears the queue's policy in moto (Queue._set_attributes sets it from the call's attributes
whatever they are); AWS changes only the attributes a call names (SQS API Reference,
SetQueueAttributes). An interruption queue whose retention is updated would lose the policy that
lets EventBridge deliver to it. Here the policy is kept unless the call names it.

Then it serves as moto_server does (moto.server.main).
"""

import functools
import json
import os
import sys
import threading
from collections import defaultdict

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eks-ami-parameters.json")


def load_table():
    with open(TABLE, encoding="utf-8") as f:
        table = json.load(f)
    return table["parameters"], table["images"]


def add_images(images):
    from moto.ec2.models import amis

    bases = {a["ami_id"]: a for a in amis.AMIS}
    for image in images:
        base = bases.get(image["Base"])
        if base is None:
            raise SystemExit("motoserver.py: image %s copies %s, which moto's AMI table lacks" % (image["ImageId"], image["Base"]))
        copy = dict(base)
        copy.update(ami_id=image["ImageId"], name=image["Name"], description=image["Name"], image_location="amazon/" + image["Name"])
        amis.AMIS.append(copy)


def install(parameters):
    from moto.ssm import models

    # The prefixes the table covers: /aws/service/eks, /aws/service/bottlerocket,
    # /aws/service/ami-windows-latest.
    prefixes = sorted({"/".join(p["Name"].split("/")[:4]) for p in parameters})
    original = models.ParameterDict._check_loading_status

    def check_loading_status(self, key):
        original(self, key)
        key = str(key or "")
        if getattr(self, "_eks_ami_parameters_loaded", False):
            return
        # A name under a prefix (GetParameter), or a path above one (GetParametersByPath).
        if not any(key.startswith(p) or p.startswith(key.rstrip("/") + "/") for p in prefixes):
            return
        self._eks_ami_parameters_loaded = True
        for p in parameters:
            # AWS's public parameters belong to no account: arn:aws:ssm:<region>::parameter/aws/...
            defaultdict.__getitem__(self, p["Name"]).append(
                models.Parameter(
                    account_id="",
                    name=p["Name"],
                    value=p["Value"],
                    parameter_type=p["Type"],
                    description=None,
                    allowed_pattern=None,
                    keyid=None,
                    last_modified_date=p["LastModifiedDate"],
                    version=p["Version"],
                    data_type=p["DataType"],
                )
            )

    models.ParameterDict._check_loading_status = check_loading_status
    return prefixes


def fix_spot_role_name():
    from moto.iam import models

    models.SERVICE_NAME_CONVERSION["spot"] = "EC2Spot"


def serialize_ec2_tags():
    from moto.ec2.models.tags import TagBackend

    lock = threading.RLock()

    def locked(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            with lock:
                return method(self, *args, **kwargs)

        return call

    # Every method of the tag store that reads or changes TagBackend.tags.
    for name in ("create_tags", "delete_tags", "delete_tag_keys", "describe_tags"):
        setattr(TagBackend, name, locked(getattr(TagBackend, name)))


def keep_queue_policy():
    from moto.sqs.models import Queue

    original = Queue._set_attributes

    @functools.wraps(original)
    def set_attributes(self, attributes, *args, **kwargs):
        kept = getattr(self, "_policy_json", None)
        original(self, attributes, *args, **kwargs)
        if "Policy" not in attributes and kept is not None:
            self._policy_json = kept

    Queue._set_attributes = set_attributes


def main():
    interval = os.environ.get("MOTOSERVER_SWITCH_INTERVAL")
    if interval:
        sys.setswitchinterval(float(interval))
    parameters, images = load_table()
    add_images(images)
    prefixes = install(parameters)
    fix_spot_role_name()
    serialize_ec2_tags()
    keep_queue_policy()
    sys.stderr.write(
        "motoserver.py: %d EKS optimized-AMI parameters (%s) loaded into moto's SSM on first use, from %s, "
        "each naming an image of its own added to moto's AMIs; "
        "spot.amazonaws.com's service-linked role named AWSServiceRoleForEC2Spot, as AWS names it; "
        "EC2's tag store serialized (concurrent CreateTags and DescribeTags); "
        "SetQueueAttributes keeps a queue's policy unless it names one\n"
        % (len(parameters), ", ".join(prefixes), TABLE)
    )
    sys.stderr.flush()
    from moto.server import main as moto_main

    sys.argv[0] = "moto_server"
    return moto_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
