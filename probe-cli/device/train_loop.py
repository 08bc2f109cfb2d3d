#!/usr/bin/env python3
"""A small PyTorch training loop that prints its step times, for `gpufare run --step-regex`.

    python3 train_loop.py [--steps N] [--warmup N] [--width D] [--layers L] [--tokens T] [--cpu]

Trains a stack of L linear layers (D x D, GELU between them, about L * D^2 parameters) on
random data with AdamW under BF16 autocast, T tokens per step. Each timed step ends with a
device synchronisation and prints one line:

    step 12 time: 9.874 ms

which `--step-regex 'step [0-9]+ time: ([0-9.]+) ms'` reads. The defaults (8 x 4096^2, 8,192
tokens, 100 timed steps after 10 warm-up steps) take a few seconds on a data-centre GPU, about
6.6 TFLOP a step. Exit status: 0 done, 3 no PyTorch, 4 no CUDA device (unless --cpu).
"""

import argparse
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=8192)
    ap.add_argument("--cpu", action="store_true", help="run on the CPU when there is no CUDA device")
    args = ap.parse_args()

    try:
        import torch
    except Exception as e:  # ImportError, or a broken install raising anything else
        print(f"train_loop: PyTorch is not installed here (import torch: {e}); nothing to train",
              file=sys.stderr)
        return 3
    if torch.cuda.is_available():
        device = torch.device("cuda", 0)
        print(f"train_loop: torch {torch.__version__}, CUDA {torch.version.cuda}, "
              f"{torch.cuda.get_device_name(device)}", flush=True)
    elif args.cpu:
        device = torch.device("cpu")
        print(f"train_loop: torch {torch.__version__} on the CPU (no CUDA device)", flush=True)
    else:
        print("train_loop: PyTorch sees no CUDA device (torch.cuda.is_available() is False); "
              "pass --cpu to train on the CPU", file=sys.stderr)
        return 4

    torch.manual_seed(0)
    layers = []
    for i in range(args.layers):
        layers.append(torch.nn.Linear(args.width, args.width))
        if i + 1 < args.layers:
            layers.append(torch.nn.GELU())
    model = torch.nn.Sequential(*layers).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(args.tokens, args.width, device=device)
    target = torch.randn(args.tokens, args.width, device=device)
    params = sum(p.numel() for p in model.parameters())
    print(f"train_loop: {params / 1e6:.1f} M parameters, {args.tokens} tokens a step, "
          f"{6 * params * args.tokens / 1e12:.2f} TFLOP a step", flush=True)

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = torch.nn.functional.mse_loss(model(x).float(), target)
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    sync()
    for i in range(args.steps):
        start = time.perf_counter()
        loss = step()
        sync()
        ms = (time.perf_counter() - start) * 1e3
        print(f"step {i} time: {ms:.3f} ms", flush=True)
    print(f"train_loop: done, final loss {loss.item():.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
