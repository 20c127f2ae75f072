print("dfu-bench")
