#!/usr/bin/env bash
# CleanRL's own push_to_hub and ours (envs/run/hub.ts) push the same run to the local Hub stand-in of
# tests/hub_stand_in.ts; the script prints both repos' files and both model cards' metadata, then checks that
# huggingface_hub's hf_hub_download and ours read each other's cache. Nothing leaves 127.0.0.1.
#   bash benchmark/hub_parity.sh CLEANRL_CHECKOUT
# Python: $PYTHON (default python3) with huggingface_hub, tenacity, numpy and pyyaml, e.g.
#   python3 -m venv /tmp/hub-venv && /tmp/hub-venv/bin/pip install huggingface_hub tenacity numpy pyyaml
# CleanRL's push_to_hub also pushes the checkout's poetry.lock; a checkout that has uv.lock instead needs a copy of
# it under that name first (`cp uv.lock poetry.lock`), or its upload stops there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
CLEANRL="$(cd "$1" && pwd)"
WORK="$(mktemp -d)"
cd "$WORK"
ln -s "$ROOT/node_modules" node_modules
node --import tsx "$ROOT/tests/hub_stand_in.ts" serve > port.txt &
SERVER=$!
trap 'kill $SERVER; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.2; done
export HF_ENDPOINT="http://127.0.0.1:$(cat port.txt)" HF_TOKEN=hf_standintoken HF_HUB_DISABLE_XET=1 HF_HUB_DISABLE_TELEMETRY=1
RUN=CartPole-v1__ppo__1__1

# One finished run: agent, event file, three evaluation videos (binary content, as the real ones).
mkdir -p "runs/$RUN" "videos/$RUN-eval"
printf '\0agent' > "runs/$RUN/ppo.cleanrl_model"
printf '\0events' > "runs/$RUN/events.out.tfevents.1.host.1.0"
for i in 0 2 8; do printf '\0mp4 %s' $i > "videos/$RUN-eval/rl-video-episode-$i.mp4"; done

"$PYTHON" - "$CLEANRL" "$RUN" <<'PY'
import argparse, sys
cleanrl, run = sys.argv[1], sys.argv[2]
sys.path.insert(0, cleanrl)
from cleanrl_utils.huggingface import push_to_hub
sys.argv = [f"{cleanrl}/cleanrl/ppo.py", "--seed", "1", "--save-model", "--upload-model"]
args = argparse.Namespace(exp_name="ppo", seed=1, env_id="CartPole-v1", learning_rate=2.5e-4)
push_to_hub.__wrapped__(args, [1, 2, 3], "cleanrl-py/CartPole-v1-ppo-seed1", "PPO", f"runs/{run}", f"videos/{run}-eval")
PY

# The same run as ours leaves it: the agent as .safetensors, no card yet.
mv "runs/$RUN/ppo.cleanrl_model" "runs/$RUN/ppo.safetensors"
rm "runs/$RUN/README.md"
cat > push.mts <<TS
import { pushToHub } from "$ROOT/envs/run/hub.ts";
await pushToHub({ args: { expName: "ppo", seed: 1, envId: "CartPole-v1", hfEntity: "ppo-ts", learningRate: 2.5e-4 },
  episodicReturns: [1, 2, 3], folderPath: "runs/$RUN", videoFolderPath: "videos/$RUN-eval",
  scriptPath: "$ROOT/ppo.ts", argv: ["--seed", "1", "--save-model", "--upload-model"] });
TS
node --import tsx push.mts

for r in cleanrl-py ppo-ts; do curl -s "$HF_ENDPOINT/__file/$r/CartPole-v1-ppo-seed1/README.md" > "README.$r.md"; done
curl -s "$HF_ENDPOINT/__state" > state.json
"$PYTHON" - <<'PY'
import json, yaml
state = json.load(open("state.json"))
for repo, r in state["repos"].items():
    print(f"{repo}: {', '.join(sorted(r['files']))}")
meta = {r: yaml.safe_load(open(f"README.{r}.md").read().split("---")[1]) for r in ("cleanrl-py", "ppo-ts")}
for r, m in meta.items():
    print(f"{r} card metadata: {json.dumps(m)}")
a, b = meta["cleanrl-py"], meta["ppo-ts"]
print("same metadata fields:", sorted(a) == sorted(b), "| same tags:", a["tags"] == b["tags"], "| same model-index:", a["model-index"] == b["model-index"])
PY

# Each side's cache read by the other, offline.
cat > resolve.mts <<TS
import { resolveHubReference } from "$ROOT/envs/run/hub.ts";
console.log(await resolveHubReference(process.argv[2]));
TS
HF_HUB_CACHE="$WORK/py-cache" "$PYTHON" -c "from huggingface_hub import hf_hub_download as d; print('huggingface_hub downloaded', d('ppo-ts/CartPole-v1-ppo-seed1', 'ppo.safetensors'))"
echo "ours, offline, from that cache: $(HF_HUB_OFFLINE=1 HF_HUB_CACHE="$WORK/py-cache" node --import tsx resolve.mts hf://ppo-ts/CartPole-v1-ppo-seed1/ppo.safetensors)"
echo "ours downloaded $(HF_HUB_CACHE="$WORK/ts-cache" node --import tsx resolve.mts hf://ppo-ts/CartPole-v1-ppo-seed1/ppo.safetensors 2>/dev/null)"
HF_HUB_OFFLINE=1 HF_HUB_CACHE="$WORK/ts-cache" "$PYTHON" -c "from huggingface_hub import hf_hub_download as d; print('huggingface_hub, offline, from that cache:', d('ppo-ts/CartPole-v1-ppo-seed1', 'ppo.safetensors'))"
