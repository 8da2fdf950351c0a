"""Builds the committed model store: tiny scikit-learn models on synthetic data, converted
to Core ML, saved as <store>/<flowName>/<modelVersion>.mlmodel, plus <store>/index.json.

The models only need to be real Core ML files with plausible inputs and metadata (the
release tool reads them, the SDK would run them); their predictions mean nothing. Run
through Scripts/make-models, which pins the package versions this output depends on.

Output is byte-deterministic: fixed seeds, integer features (tree thresholds land on
x.5), linear weights rounded before conversion (so last-bit differences between BLAS
kernels on different CPUs cannot change a file), and protobuf maps serialized sorted.
"""

import hashlib
import json
import logging
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass, field

# coremltools' native runtime ships only on macOS; without it, importing coremltools logs
# one warning per proxy class. Nothing here predicts, so those warnings are noise.
logging.getLogger("coremltools").setLevel(logging.ERROR)

import coremltools  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402

AUTHOR = "ContextSDK model training (synthetic data)"
TRAINING_ROWS = 400
WEIGHT_DECIMALS = 4


@dataclass(frozen=True)
class Feature:
    """An input feature: a name and the integer range synthetic values are drawn from."""

    name: str
    low: int
    high: int


@dataclass(frozen=True)
class Flow:
    flow_id: int
    flow_name: str
    purpose: str
    features: list
    # "logistic", "tree_classifier", "linear", "tree_regressor": which estimator is trained.
    estimator: str
    output_name: str
    # model version -> decision threshold the SDK compares the model's score against.
    versions: dict = field(default_factory=dict)
    # model version -> inputs that version adds to `features`: a model trained on a signal a
    # newer SDK computes (the release tool must refuse it for an older SDK).
    extra_features: dict = field(default_factory=dict)

    def features_of(self, version):
        return self.features + self.extra_features.get(version, [])


FLOWS = [
    Flow(
        8362, "onboarding_upsell", "Decides whether to show the upsell at the end of onboarding.",
        [Feature("session_count", 1, 30), Feature("days_since_install", 0, 60),
         Feature("minutes_in_app", 0, 240), Feature("screens_viewed", 1, 50)],
        "logistic", "show_upsell", {72: "0.60", 73: "0.65", 74: "0.70"},
    ),
    Flow(
        8363, "paywall_timing", "Decides whether now is a good moment to show the paywall.",
        [Feature("session_count", 1, 30), Feature("minutes_in_current_session", 0, 90),
         Feature("premium_features_tapped", 0, 12), Feature("days_since_install", 0, 60)],
        "tree_classifier", "show_paywall", {12: "0.50", 13: "0.55", 14: "0.58", 15: "0.60"},
        extra_features={15: [Feature("battery_level", 0, 100)]},
    ),
    Flow(
        8364, "tracking_permission", "Decides when to ask for App Tracking Transparency permission.",
        [Feature("app_launches", 1, 40), Feature("onboarding_completed", 0, 1),
         Feature("minutes_in_app", 0, 240), Feature("hour_of_day", 0, 23)],
        "logistic", "ask_tracking_permission", {5: "0.75"},
    ),
    Flow(
        8365, "rating_request", "Scores how likely a rating request now gets a good rating.",
        [Feature("sessions_last_7_days", 0, 30), Feature("crash_free_days", 0, 90),
         Feature("tasks_completed", 0, 100), Feature("days_since_last_prompt", 0, 365)],
        "linear", "rating_score", {30: "0.80", 31: "0.82"},
    ),
    Flow(
        8366, "trial_reminder", "Scores how useful a trial-ending reminder is today.",
        [Feature("trial_day", 0, 14), Feature("sessions_during_trial", 0, 60),
         Feature("premium_features_used", 0, 20)],
        "tree_regressor", "reminder_score", {3: "0.50"},
    ),
]


def training_data(flow, version):
    """Synthetic rows and targets; the seed depends on flow and version only."""
    rng = np.random.RandomState(flow.flow_id * 1000 + version)
    inputs = flow.features_of(version)
    columns = [rng.randint(f.low, f.high + 1, size=TRAINING_ROWS) for f in inputs]
    features = np.stack(columns, axis=1).astype(np.float64)
    scaled = (features - features.mean(axis=0)) / (features.std(axis=0) + 1e-9)
    hidden_weights = rng.uniform(-1.0, 1.5, size=len(inputs))
    score = scaled @ hidden_weights + rng.normal(0.0, 0.5, size=TRAINING_ROWS)
    if flow.estimator in ("logistic", "tree_classifier"):
        return features, (score > 0).astype(np.int64)
    return features, 1.0 / (1.0 + np.exp(-score))


def train(flow, version):
    features, targets = training_data(flow, version)
    if flow.estimator == "logistic":
        # coremltools converts only one-vs-rest logistic regression (for two classes the same
        # model as the default); scikit-learn 1.5 deprecates naming it, hence the filter.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*multi_class.*", category=FutureWarning)
            model = LogisticRegression(C=0.5 + version % 3, multi_class="ovr", max_iter=1000)
            model.fit(features, targets)
        model.coef_ = np.round(model.coef_, WEIGHT_DECIMALS)
        model.intercept_ = np.round(model.intercept_, WEIGHT_DECIMALS)
    elif flow.estimator == "linear":
        model = LinearRegression().fit(features, targets)
        model.coef_ = np.round(model.coef_, WEIGHT_DECIMALS)
        model.intercept_ = float(np.round(model.intercept_, WEIGHT_DECIMALS))
    elif flow.estimator == "tree_classifier":
        model = DecisionTreeClassifier(max_depth=3, random_state=version).fit(features, targets)
    elif flow.estimator == "tree_regressor":
        model = DecisionTreeRegressor(max_depth=3, random_state=version).fit(features, targets)
        model.tree_.value[:] = np.round(model.tree_.value, WEIGHT_DECIMALS)
    else:
        raise ValueError(f"unknown estimator {flow.estimator!r}")
    return model


def model_bytes(flow, version, threshold):
    model = train(flow, version)
    converted = coremltools.converters.sklearn.convert(
        model, input_features=[f.name for f in flow.features_of(version)], output_feature_names=flow.output_name
    )
    converted.short_description = flow.purpose
    converted.author = AUTHOR
    converted.version = str(version)
    converted.license = "Proprietary; synthetic test model"
    converted.user_defined_metadata["flowId"] = str(flow.flow_id)
    converted.user_defined_metadata["flowName"] = flow.flow_name
    converted.user_defined_metadata["modelVersion"] = str(version)
    converted.user_defined_metadata["threshold"] = threshold
    # MLModel.save would serialize the metadata map in hash order; sorted keys keep reruns identical.
    return converted.get_spec().SerializeToString(deterministic=True)


def write_if_changed(path, data):
    """Writes atomically; returns False (and leaves the file alone) if it already holds `data`."""
    if os.path.exists(path):
        with open(path, "rb") as existing:
            if existing.read() == data:
                return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(descriptor, "wb") as output:
        output.write(data)
    os.chmod(temporary, 0o644)  # mkstemp creates files readable by their owner only
    os.replace(temporary, path)
    return True


def index_entry(store, flow, version):
    """What coremltools itself reads back from the saved file: the tests' independent reference."""
    relative_path = f"{flow.flow_name}/{version}.mlmodel"
    path = os.path.join(store, relative_path)
    with open(path, "rb") as saved:
        data = saved.read()
    spec = coremltools.utils.load_spec(path)
    metadata = spec.description.metadata
    return {
        "flowName": flow.flow_name,
        "flowId": flow.flow_id,
        "modelVersion": version,
        "path": relative_path,
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "specificationVersion": spec.specificationVersion,
        "modelType": spec.WhichOneof("Type"),
        "inputs": [feature.name for feature in spec.description.input],
        "outputs": [feature.name for feature in spec.description.output],
        "shortDescription": metadata.shortDescription,
        "author": metadata.author,
        "userDefinedMetadata": dict(sorted(metadata.userDefined.items())),
    }


def unexpected_files(store, expected_paths):
    """Store files this script does not produce: reported, never deleted (they may be someone's)."""
    found = []
    for directory, _, names in os.walk(store):
        for name in names:
            relative = os.path.relpath(os.path.join(directory, name), store)
            if relative != "index.json" and relative not in expected_paths:
                found.append(relative)
    return sorted(found)


def main(store):
    written = unchanged = 0
    entries = []
    for flow in FLOWS:
        for version, threshold in sorted(flow.versions.items()):
            relative_path = f"{flow.flow_name}/{version}.mlmodel"
            data = model_bytes(flow, version, threshold)
            changed = write_if_changed(os.path.join(store, relative_path), data)
            written += changed
            unchanged += not changed
            print(f"{'wrote    ' if changed else 'unchanged'} {relative_path} ({len(data)} bytes)")
            entries.append(index_entry(store, flow, version))

    index = json.dumps({"models": entries}, indent=2, sort_keys=True) + "\n"
    index_changed = write_if_changed(os.path.join(store, "index.json"), index.encode())
    print(f"{'wrote    ' if index_changed else 'unchanged'} index.json ({len(entries)} models)")

    total = sum(entry["size"] for entry in entries)
    print(f"{store}: {written} model(s) written, {unchanged} unchanged, {total} bytes of models in all")
    extras = unexpected_files(store, {entry["path"] for entry in entries})
    for extra in extras:
        print(f"warning: {extra} is not made by this script and is not in index.json", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_models.py <model store directory>")
    main(os.path.abspath(sys.argv[1]))
