namespace Shop.Obj;
