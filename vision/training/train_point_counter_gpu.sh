#!/usr/bin/env bash
# Train the point network at a GPU machine's scale: 600,000 synthetic crops rendered by 16
# processes, then two trainings on the GPU (12 and 24 epochs) from the same crops. Writes the
# networks and one log under $OUT (the device tool's output folder). Not run by CI.
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/pc_out}
mkdir -p "$OUT/e12" "$OUT/e24"
log="$OUT/train.log"
nvidia-smi -L >>"$log" 2>&1
python3 -c "import torch, cv2, onnx; print(torch.__version__, cv2.__version__, torch.cuda.is_available())" >>"$log" 2>&1
timeout $((540 - SECONDS)) python3 -m vision.training.train_checkers --train 600000 --epochs 12 --device cuda --workers 16 \
    --threads 8 --cache /tmp/crops --out "$OUT/e12/point_counter.onnx" >>"$log" 2>&1
timeout $((520 - SECONDS)) python3 -m vision.training.train_checkers --train 600000 --epochs 24 --device cuda --workers 16 \
    --threads 8 --cache /tmp/crops --checkpoint "$OUT/e24/checkpoint.onnx" \
    --out "$OUT/e24/point_counter.onnx" >>"$log" 2>&1
echo "exit $?" >>"$log"
