namespace Shop.Bin;
