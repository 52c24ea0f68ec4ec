"""deploy/kubernetes/, checked offline (this machine has no Kubernetes): every manifest against Kubernetes' own schemas
(kubernetes-validate's, strict: a field the API does not have fails), at the oldest version with user namespaces on
by default (1.33) and the newest the package ships; the Zero to JupyterHub values' hub.config against the classes
they configure (a misspelt setting is no trait and fails), the student's pod KubeSpawner builds from them validated
like the rest; and the names that tie config.yaml to course.yaml and to the hub's own services.

Cost: about 9 CPU-seconds (importing kubespawner and the JupyterHub classes; the schemas are read once).
"""

import asyncio
import copy
from pathlib import Path
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml

from autograder.devtools.repo import ROOT
from autograder.hub.groups import instructor_group, student_group
from autograder.hub.hub_course import HubCourse
from autograder.hub.services import (
    exchange_service,
    exchange_service_name,
    my_assignments_service,
    my_assignments_service_name,
    push_service_name,
    roster_service_name,
    status_service,
    status_service_name,
    watch_service_name,
)

DEPLOY = ROOT / "deploy" / "kubernetes"
VALUES = DEPLOY / "config.yaml"
MANIFESTS = sorted(p for p in DEPLOY.glob("*.yaml") if p != VALUES)
VERSIONS = ("1.33.0", kubernetes_validate.latest_version())
COURSE = "rnn"
EXCHANGE = exchange_service_name(COURSE)  # autograder/hub/exchange_service.py, one per course as the others
# A kubeconfig that is read, never used: KubeSpawner loads one as it is made, and builds a pod without a cluster.
KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
"""


def documents(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def problems(doc: dict) -> list[str]:
    """What Kubernetes' schemas refuse in `doc`, at each version checked."""
    found = []
    for version in VERSIONS:
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            found.append(f"{version}: {'.'.join(map(str, exc.path))}: {exc.message}")
    return found


def by_kind(kind: str, name: str) -> dict:
    return next(doc for path in MANIFESTS for doc in documents(path)
                if doc["kind"] == kind and doc["metadata"]["name"] == name)


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.name for p in MANIFESTS])
def test_every_manifest_is_valid_kubernetes(path):
    docs = documents(path)
    assert docs
    for doc in docs:
        assert not problems(doc), (path.name, doc["kind"], doc["metadata"]["name"], problems(doc))


def test_a_misspelt_or_mistyped_field_is_refused():
    """The check can fail: a field the API does not have, and one of the wrong type."""
    worker = by_kind("Deployment", "autograder-dask-worker")
    misspelt = copy.deepcopy(worker)
    misspelt["spec"]["template"]["spec"]["hostUser"] = misspelt["spec"]["template"]["spec"].pop("hostUsers")
    assert problems(misspelt)
    mistyped = copy.deepcopy(worker)
    mistyped["spec"]["template"]["spec"]["hostUsers"] = "false"
    assert problems(mistyped)


def test_every_pod_has_a_user_namespace_of_its_own_and_no_api_token():
    pods = [doc["spec"]["template"]["spec"] for path in MANIFESTS for doc in documents(path)
            if doc["kind"] == "Deployment"]
    assert len(pods) == 3
    for pod in pods:
        assert pod["hostUsers"] is False and pod["automountServiceAccountToken"] is False


def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


def unknown_settings(cls: type, settings: dict) -> list[str]:
    traits = cls.class_traits(config=True)
    return sorted(name for name in settings if name not in traits)


def test_the_hub_settings_are_traits_of_the_classes_they_configure():
    from jupyterhub.app import JupyterHub
    from kubespawner import KubeSpawner

    from autograder.hub.lti_login import CourseLtiAuthenticator

    config = values()["hub"]["config"]
    classes = {"JupyterHub": JupyterHub, "Authenticator": CourseLtiAuthenticator,
               "CourseLtiAuthenticator": CourseLtiAuthenticator, "KubeSpawner": KubeSpawner}
    assert set(config) <= set(classes)
    for section, settings in config.items():
        assert not unknown_settings(classes[section], settings), section
    assert unknown_settings(KubeSpawner, {**config["KubeSpawner"], "extra_pod_confg": {}}) == ["extra_pod_confg"]


@pytest.fixture(scope="module")
def student_pod(tmp_path_factory) -> dict:
    """The pod KubeSpawner makes for a student from config.yaml's KubeSpawner settings."""
    from kubernetes_asyncio.config import kube_config
    from kubespawner import KubeSpawner
    from traitlets.config import Config

    kubeconfig = tmp_path_factory.mktemp("kube") / "config"
    kubeconfig.write_text(KUBECONFIG)
    # $KUBECONFIG is read once, as kubernetes_asyncio is imported: its default location is where it looks.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kube_config, "KUBE_CONFIG_DEFAULT_LOCATION", str(kubeconfig))

        async def build() -> dict:
            settings = Config({"KubeSpawner": values()["hub"]["config"]["KubeSpawner"]})
            spawner = KubeSpawner(config=settings, _mock=True)
            return spawner.api.api_client.sanitize_for_serialization(await spawner.get_pod_manifest())

        return asyncio.run(build())


def test_a_students_pod_is_valid_and_in_a_user_namespace_as_uid_1000(student_pod):
    assert not problems(student_pod), problems(student_pod)
    spec = student_pod["spec"]
    assert spec["hostUsers"] is False and spec["automountServiceAccountToken"] is False
    [container] = spec["containers"]
    context = container["securityContext"]
    assert context["runAsUser"] == 1000 and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"] == {"drop": ["ALL"]}
    environment = {e["name"]: e.get("value") for e in container["env"]}
    assert environment["AUTOGRADER_EXCHANGE_URL"].rstrip("/").endswith(f"/services/{EXCHANGE}")


def test_the_services_are_the_hubs_own_names_each_served_by_the_courses_pod():
    hub = values()["hub"]
    names = {watch_service_name(COURSE), status_service_name(COURSE), my_assignments_service_name(COURSE),
             push_service_name(COURSE), roster_service_name(COURSE), EXCHANGE}
    assert set(hub["services"]) == names
    pod = by_kind("Deployment", f"autograder-course-{COURSE}")["spec"]["template"]["spec"]
    service = by_kind("Service", f"autograder-course-{COURSE}")
    ports = {p["port"]: p["targetPort"] for p in service["spec"]["ports"]}
    served = {}
    for container in pod["containers"]:
        env = {e["name"]: e for e in container.get("env", [])}
        if "JUPYTERHUB_SERVICE_NAME" in env:
            name = env["JUPYTERHUB_SERVICE_NAME"]["value"]
            assert env["JUPYTERHUB_SERVICE_PREFIX"]["value"] == f"/services/{name}/"
            token = env["JUPYTERHUB_API_TOKEN"]["valueFrom"]["secretKeyRef"]
            assert token == {"name": "hub", "key": f"hub.services.{name}.apiToken"}  # where the chart keeps it
            [port] = container["ports"]
            served[name] = (port["name"], urlparse(env["JUPYTERHUB_SERVICE_URL"]["value"]).port, port["containerPort"])
    with_url = {name: urlparse(s["url"]) for name, s in hub["services"].items() if "url" in s}
    assert set(with_url) == set(served)
    for name, url in with_url.items():
        port_name, listens, container_port = served[name]
        assert url.hostname == service["metadata"]["name"] and ports[url.port] == port_name
        assert listens == container_port
    # Each service's role as services.py makes it for a hub on one machine: the same name and scopes, given to
    # (at least) the same groups.
    roles = hub["loadRoles"]
    course = HubCourse(COURSE, Path("/course"), Path("/exchange"))
    for _, role in (status_service(course), my_assignments_service(course), exchange_service(course)):
        assert roles[role["name"]]["scopes"] == role["scopes"], role["name"]
        assert set(role["groups"]) <= set(roles[role["name"]]["groups"]), role["name"]
    assert roles[status_service(course)[1]["name"]]["groups"] == [instructor_group(COURSE)]
    assert roles[my_assignments_service(course)[1]["name"]]["groups"] == [student_group(COURSE)]
    scopes = hub["config"]["KubeSpawner"]["server_token_scopes"]
    assert f"access:services!service={EXCHANGE}" in scopes


def test_the_watcher_grades_on_the_workers_scheduler():
    pod = by_kind("Deployment", f"autograder-course-{COURSE}")["spec"]["template"]["spec"]
    [watch] = [c for c in pod["containers"] if c["name"] == "watch"]
    address = urlparse(watch["command"][watch["command"].index("--cluster") + 1])
    scheduler = by_kind("Service", "autograder-dask-scheduler")
    assert address.hostname == f"{scheduler['metadata']['name']}.{scheduler['metadata']['namespace']}.svc"
    assert address.port == scheduler["spec"]["ports"][0]["port"]
    assert {"name": "PGPASSWORD", "valueFrom": {"secretKeyRef": {"name": "autograder-gradebook", "key": "password"}}} \
        in watch["env"]
